#!/usr/bin/env bash
# Extraction throughput of every extractor on ONE thread, and the process's peak RSS.
#
#   scripts/bench-extract.sh                          # modern2026-dev and cleaneval
#   scripts/bench-extract.sh trafilatura-eval         # other sets (names under ../shared/data)
#   EXTRACTORS=default,justext scripts/bench-extract.sh
#
# Time = the summed thread CPU time of the extractions alone (parse, segment, label, paragraphs),
# as the pages/s column of `webcorpus eval`; MB/s counts decoded HTML. Then `webcorpus extract`
# end to end (the default extractor: gunzip, decoding, extraction, the page classifier, JSON
# out) over each set's files, EXTRACT_RUNS times (default 3): MB of HTML per CPU second
# (user+sys), the median. Run it on an otherwise idle machine: it is a benchmark, not a test.
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

# `webcorpus extract` end to end, per set.
runs=${EXTRACT_RUNS:-3}
printf '\n%-20s %7s %9s %s\n' "extract end to end" pages "HTML MB" "MB per CPU second (median; runs)"
for set in ${sets//,/ }; do
  files=$(find "$WEBCORPUS_DATA/$set" -name '*.html' -o -name '*.html.gz' -o -name '*.htm' | sort)
  [ -n "$files" ] || continue
  bytes=$(for f in $files; do case "$f" in *.gz) gzip -dc "$f" ;; *) cat "$f" ;; esac; done | wc -c)
  cpus=()
  for _ in $(seq 1 "$runs"); do
    # shellcheck disable=SC2086
    /usr/bin/time -f '%U %S' -o "$out/extract.time" "$bin" extract $files >"$out/extract.jsonl" 2>/dev/null
    cpus+=("$(awk '{print $1 + $2}' "$out/extract.time")")
  done
  python3 - "$set" "$(wc -l <"$out/extract.jsonl")" "$bytes" "${cpus[@]}" <<'PY'
import statistics, sys
name, pages, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rates = [size / 1e6 / float(c) for c in sys.argv[4:]]
print(f"{name:<20} {pages:>7} {size / 1e6:>9.1f} {statistics.median(rates):.1f}; {', '.join(f'{r:.1f}' for r in rates)}")
PY
done
