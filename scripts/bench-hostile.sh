#!/usr/bin/env bash
# Bounded work on hostile pages: wall time of `webcorpus extract` on 100,000 nested <div> and
# 200,000 nested <span> (1.1 and 1.6 MB), every extractor, median of RUNS runs (default 3).
# Target (issue "Hostile web"): at most 1 s each.
#
#   scripts/bench-hostile.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/webcorpus
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
open(f"{d}/div.html", "w").write("<html><body>" + "<div>" * 100000 + "text " * 50 + "</div>" * 100000 + "</body></html>")
open(f"{d}/span.html", "w").write("<html><body><p>" + "<span>x " * 200000 + "</p></body></html>")
PY
printf '%-6s %-16s %10s\n' page extractor "median s"
for page in div span; do
  for extractor in default justext goldminer stadynot bte boilerpipe boilerpipe-tree boilernet; do
    times=()
    for _ in $(seq "$runs"); do
      start=$(date +%s.%N)
      "$bin" extract --extractor "$extractor" "$tmp/$page.html" >/dev/null
      end=$(date +%s.%N)
      times+=("$(echo "$end - $start" | bc)")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '%-6s %-16s %10.3f\n' "$page" "$extractor" "$median"
  done
done
