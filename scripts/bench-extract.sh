#!/usr/bin/env bash
# Extraction throughput of every extractor on ONE thread, and the process's peak RSS.
#
#   scripts/bench-extract.sh                          # modern2026-dev and cleaneval
#   scripts/bench-extract.sh trafilatura-eval         # other sets (names under ../shared/data)
#   EXTRACTORS=default,justext scripts/bench-extract.sh
#
# Time = the summed thread CPU time of the extractions alone (parse, segment, label, paragraphs),
# as the pages/s column of `webcorpus eval`; MB/s counts decoded HTML. Run it on an otherwise idle
# machine: it is a benchmark, not a test.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${WEBCORPUS_SHARED:-$repo/../shared}
export WEBCORPUS_DATA="$shared/data"
sets=${1:-modern2026-dev,cleaneval}
cd "$repo"
if [ ! -d "$WEBCORPUS_DATA" ]; then
  echo "evaluation data not found at $WEBCORPUS_DATA; set WEBCORPUS_SHARED" >&2
  exit 1
fi
cargo build --release --quiet
bin=target/release/webcorpus
if [ -z "${EXTRACTORS:-}" ]; then
  # Every registered extractor: the CLI lists the known names when given an unknown one.
  EXTRACTORS=$( ($bin eval --extractor '?' 2>&1 || true) | sed -n 's/.*known: //p' | head -1 | tr -d ' ')
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-16s %7s %9s %8s %14s\n' extractor pages pages/s MB/s "peak RSS MB"
for x in ${EXTRACTORS//,/ }; do
  /usr/bin/time -f %M -o "$out/$x.rss" "$bin" eval --threads 1 --data "$sets" --extractor "$x" \
    --json "$out/$x.json" >/dev/null
  python3 - "$out/$x.json" "$out/$x.rss" "$x" <<'PY'
import json, sys
sets = json.load(open(sys.argv[1]))
rss_kb = int(open(sys.argv[2]).read().split()[-1])
pages = secs = size = 0
for s in sets:
    for row in s["rows"]:
        if row["variant"]["mode"] != "loo":
            pages += row["summary"]["pages"]
            secs += row["summary"]["extract_secs"]
            size += row["summary"]["html_bytes"]
print(f"{sys.argv[3]:<16} {pages:>7} {pages / secs:>9.0f} {size / secs / 1e6:>8.1f} {rss_kb / 1024:>14.0f}")
PY
done
