#!/usr/bin/env bash
# `extract --per-site` benchmark: MB of HTML per second (wall and CPU) and peak RSS when a WARC
# of many small hosts is re-extracted with the crawl's per-host procedure.
#
#   scripts/bench-per-site.sh              # 1,000 then 4,000 hosts
#   scripts/bench-per-site.sh 4000         # one size
#
# The WARC (gzip per record, built once per size, fixed order) holds N hosts h<i>.bench.test of
# one page each (fewer than [learn] min_sample: no host learns, every page is extracted with
# the default and deduplicated), the pages taken in turn from every set of ../shared/data
# (cleaneval, cleanportaleval, l3s-gn1, modern2026-dev, trafilatura-eval; decoded as served).
# Each size runs BENCH_RUNS times (default 3) under `/usr/bin/time -v`; every run must write
# the same records. Printed: the HTML size, then per size the medians of wall seconds, MB of
# HTML per wall second and per CPU second (user + sys), peak RSS, and one JSON line. Targets
# (issue 51): at least 20 MB/s, memory flat in the number of hosts.
#
# Environment: WEBCORPUS_BIN (default target/release/webcorpus, built with cargo when unset),
# WEBCORPUS_SHARED (default ../shared), BENCH_RUNS, BENCH_KEEP=1 keeps the work directory, TMPDIR.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# shellcheck source=lib/common.sh
. "$repo/scripts/lib/common.sh"
runs=${BENCH_RUNS:-3}
case "$runs" in '' | *[!0-9]* | 0) echo "error: BENCH_RUNS must be a positive number, got '$runs'" >&2; exit 2 ;; esac
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(1000 4000); fi
for n in "${sizes[@]}"; do
  case "$n" in '' | *[!0-9]* | 0) echo "error: N must be a positive number, got '$n'" >&2; exit 2 ;; esac
done
[ -d "$shared/data" ] || { echo "error: $shared/data not found (set WEBCORPUS_SHARED)" >&2; exit 1; }
resolve_bin
if [ ! -x /usr/bin/time ]; then
  echo "/usr/bin/time not found: installing it (apt-get install time)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-per-site.XXXXXX")
cleanup() { if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT

for n in "${sizes[@]}"; do
  python3 - "$shared/data" "$n" "$work/hosts-$n.warc.gz" <<'PY'
import gzip, os, sys, uuid
data, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
files = []
for name in sorted(os.listdir(data)):
    html = os.path.join(data, name, "html")
    if os.path.isdir(html):
        files += [os.path.join(html, f) for f in sorted(os.listdir(html))]
total = 0
with open(out, "wb") as w:
    for i in range(n):
        path = files[i % len(files)]
        body = open(path, "rb").read()
        if path.endswith(".gz"):
            body = gzip.decompress(body)
        total += len(body)
        http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
        head = (f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uuid.UUID(int=i + 1)}>\r\n"
                f"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: http://h{i}.bench.test/page.html\r\n"
                f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n").encode()
        w.write(gzip.compress(head + http + b"\r\n\r\n", 1))
open(out + ".html_bytes", "w").write(str(total))
print(f"{n:,} hosts: {total / 1e6:.1f} MB of HTML, WARC {os.path.getsize(out) / 1e6:.1f} MB")
PY
  for run in $(seq 1 "$runs"); do
    t0=$(date +%s.%N)
    /usr/bin/time -v -o "$work/time-$n.$run.txt" "$bin" extract --per-site "$work/hosts-$n.warc.gz" \
      >"$work/out-$n.$run.jsonl" 2>"$work/err-$n.$run.txt"
    t1=$(date +%s.%N)
    echo "$t0 $t1" >>"$work/walls-$n.txt"
    if [ "$run" -gt 1 ] && ! cmp -s "$work/out-$n.1.jsonl" "$work/out-$n.$run.jsonl"; then
      echo "error: run $run wrote other records than run 1" >&2
      exit 1
    fi
  done
  tail -1 "$work/err-$n.1.txt"
  python3 -B - "$helper" "$work" "$n" "$runs" <<'PY'
import importlib.util, json, os, statistics, sys
helper, work, n, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
spec = importlib.util.spec_from_file_location("bench_crawl", helper)
bc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bc)
mb = int(open(os.path.join(work, f"hosts-{n}.warc.gz.html_bytes")).read()) / 1e6
walls = [float(b) - float(a) for a, b in (l.split() for l in open(os.path.join(work, f"walls-{n}.txt")))]
tvs = [bc.parse_time_v(os.path.join(work, f"time-{n}.{i}.txt")) for i in range(1, runs + 1)]
wall = statistics.median(walls)
cpu = statistics.median(t.get("user_s", 0.0) + t.get("sys_s", 0.0) for t in tvs)
rss = statistics.median(t["peak_rss_kb"] for t in tvs) / 1024
print(f"{n:,} hosts, medians of {runs}: wall {wall:.2f} s, {mb / wall:.1f} MB/s of HTML (target >= 20), "
      f"{mb / cpu:.1f} MB per CPU second, peak RSS {rss:.0f} MB (runs: {', '.join(f'{w:.2f}' for w in walls)} s)")
print(json.dumps({"hosts": n, "html_mb": round(mb, 1), "wall_s": round(wall, 2), "mb_per_s": round(mb / wall, 1),
                  "mb_per_cpu_s": round(mb / cpu, 1), "peak_rss_mb": round(rss)}))
PY
done
