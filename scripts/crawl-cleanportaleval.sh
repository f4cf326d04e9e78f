#!/usr/bin/env bash
# Crawl the 4 CleanPortalEval sites (every page URL of its gold.jsonl, served on loopback at
# its original URL) with the default pipeline — per-host sampling, GoldMiner/StaDyNoT
# learning, jusText, Onion — and score the corpus against the human gold text (word-level
# precision/recall/F1 by alignment, CleanEval style).
#
#   scripts/crawl-cleanportaleval.sh [EXTRA CRAWL ARGS...]     # e.g. --extractor justext
#
# Output in target/cleanportaleval/ (state, corpus, score.txt).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${WEBCORPUS_SHARED:-$repo/../shared}
data="$shared/data/cleanportaleval"
[ -f "$data/gold.jsonl" ] || { echo "error: $data/gold.jsonl not found (set WEBCORPUS_SHARED)" >&2; exit 1; }
work="$repo/target/cleanportaleval"
addr=127.0.0.1:8701
rm -rf "$work" && mkdir -p "$work"
cat >"$work/config.toml" <<TOML
[crawl]
state_dir = "$work/state"
out_dir = "$work/corpus"
max_depth = 0          # the seeds are the whole set; their other links are not in the snapshot
[politeness]
min_delay = "0s"       # loopback
[learn]
min_sample = 10
[net.resolve]
"bbc.co.uk" = "$addr"
"blogs.wsj.com" = "$addr"
"tv.msnbc.com" = "$addr"
"washingtonpost.com" = "$addr"
"www.washingtonpost.com" = "$addr"
TOML
cd "$repo"
cargo build --release --quiet
SERVE_ADDR=$addr SERVE_ARGS="--cleanportaleval $data" WEBCORPUS_SHARED="$shared" scripts/serve-sites.sh \
  target/release/webcorpus crawl --seeds seeds/cleanportaleval.txt --config "$work/config.toml" --quiet "$@"
target/release/webcorpus score --corpus "$work/corpus/corpus.jsonl" --gold "$data/gold.jsonl" | tee "$work/score.txt"
