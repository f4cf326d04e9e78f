#!/usr/bin/env bash
# Extract the CleanPortalEval pages per site with `webcorpus extract --site` (each site's model
# learned from all its pages, the papers' protocol) and score them against the gold text.
#
#   scripts/extract-cleanportaleval.sh [EXTRACTOR]     # default: the default pipeline
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${WEBCORPUS_SHARED:-$repo/../shared}
data="$shared/data/cleanportaleval"
extractor=${1:-default}
out="$repo/target/cleanportaleval-extract-$extractor.jsonl"
cd "$repo"
cargo build --release --quiet
: >"$out"
for site in bbc.co.uk blogs.wsj.com tv.msnbc.com washingtonpost.com; do
  target/release/webcorpus extract --extractor "$extractor" --site "$site" "$data"/html/"$site"_*.html.gz >>"$out"
done
target/release/webcorpus score --corpus "$out" --gold "$data/gold.jsonl" "${@:2}"
