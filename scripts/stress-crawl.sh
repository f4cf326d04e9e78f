#!/usr/bin/env bash
# Stress test of the crawl engine: the crawl of the five shared sites (seeds/example.txt, served
# by nginx on a free 127.0.0.1 port) run RUNS times at --min-delay 0s while CONTENTION busy
# processes compete for the CPU, looking for a crawl that stops fetching before it is done.
#
#   scripts/stress-crawl.sh [RUNS]            # default 50
#
# A run counts as hung when its status snapshot (`<state>/status.json`: pages fetched and
# records written) has not changed for STRESS_HANG_S seconds (default 60) while the crawler is
# alive: its snapshot, state and log are kept (the work directory stays), the crawl is interrupted
# (SIGINT) and run again with the same command, as a user would. The runs' corpora are
# compared (records without their fetch times and WARC offsets, sorted): they may differ in
# which host keeps a short paragraph that two hosts share (Onion keeps the first one written,
# and the order of pages across hosts follows the network), never in their records or pages.
# The crawl's watchdog lines ("host woken by the watchdog") are counted: a woken host is a
# scheduling defect the watchdog covered.
#
# Printed: one line per run (wall s, pages, records, corpus digest, watchdog lines, hung), then
# a summary: runs, hangs, distinct corpora, median wall. Exit 1 on a hang, a failed crawl, or
# runs that differ in pages fetched or records written.
#
# Environment: WEBCORPUS_BIN (default target/release/webcorpus, built when unset),
# WEBCORPUS_SHARED (default ../shared), CONTENTION (busy processes, default: the number of
# cores), STRESS_HANG_S, STRESS_KEEP=1 keeps the work directory, TMPDIR. Traffic stays on
# 127.0.0.1.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# shellcheck source=lib/common.sh
. "$repo/scripts/lib/common.sh"
runs=${1:-50}
hang_s=${STRESS_HANG_S:-60}
contention=${CONTENTION:-$(nproc)}
case "$runs" in '' | *[!0-9]*) echo "error: RUNS must be a number, got '$runs'" >&2; exit 2 ;; esac
[ -d "$shared/sites" ] || { echo "error: $shared/sites not found (set WEBCORPUS_SHARED)" >&2; exit 1; }
resolve_bin
default_int=()
if env --default-signal=INT true 2>/dev/null; then default_int=(env --default-signal=INT); fi

work=$(mktemp -d "${TMPDIR:-/tmp}/stress-crawl.XXXXXX")
chmod 755 "$work"
busy=()
crawl_pid=
cleanup() {
  [ -n "$crawl_pid" ] && kill -KILL "$crawl_pid" 2>/dev/null
  for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
  stop_nginx
  if [ "${STRESS_KEEP:-0}" = 1 ] || [ -n "$(ls "$work"/run*/hung-status.json 2>/dev/null)" ]; then
    echo "work directory kept: $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_nginx "$work/nginx" "$(cd "$shared/sites" && pwd)" --shared
python3 "$helper" crawl-config --base "$repo/config.toml" --out "$work/config.toml" --addr "127.0.0.1:$port"
for _ in $(seq 1 "$contention"); do
  python3 -c 'while True: pass' &
  busy+=($!)
done
echo "stress: $runs crawls of the five shared sites at --min-delay 0s, $contention busy processes, hang after ${hang_s}s without progress; work dir $work" >&2

# Pages fetched and records written, from the status snapshot ("" when there is none yet).
progress() { python3 -c 'import json,sys
try:
    s = json.load(open(sys.argv[1])); c = s["counters"]; print(c["fetched"], c["records"])
except Exception:
    print("")' "$1/status.json"; }

# One crawl of run directory $1; returns 0, or 3 when it hung (and was interrupted).
crawl_once() {
  local dir=$1 last= same_since now cur
  "${default_int[@]}" "$bin" crawl --seeds "$repo/seeds/example.txt" --config "$work/config.toml" \
    --state "$dir/state" --out "$dir/corpus" --min-delay 0s --quiet >>"$dir/crawl.log" 2>&1 &
  crawl_pid=$!
  same_since=$(date +%s)
  while kill -0 "$crawl_pid" 2>/dev/null; do
    sleep 1
    cur=$(progress "$dir/state")
    now=$(date +%s)
    if [ "$cur" != "$last" ]; then last=$cur; same_since=$now; continue; fi
    if [ $((now - same_since)) -ge "$hang_s" ]; then
      cp "$dir/state/status.json" "$dir/hung-status.json" 2>/dev/null || true
      kill -INT "$crawl_pid" 2>/dev/null || true
      wait "$crawl_pid" 2>/dev/null || true
      crawl_pid=
      return 3
    fi
  done
  wait "$crawl_pid" || { local rc=$?; crawl_pid=; return "$rc"; }
  crawl_pid=
}

printf 'run | wall s | pages | records | corpus | watchdog | hung\n'
for i in $(seq 1 "$runs"); do
  dir="$work/run$i"
  mkdir -p "$dir"
  t0=$(date +%s.%N)
  hung=no
  rc=0
  crawl_once "$dir" || rc=$?
  if [ "$rc" = 3 ]; then
    hung=yes
    rc=0
    crawl_once "$dir" || rc=$?
    [ "$rc" = 3 ] && hung=twice
  fi
  t1=$(date +%s.%N)
  python3 - "$dir" "$i" "$t0" "$t1" "$hung" "$rc" <<'PY'
import hashlib, json, sys
d, i, t0, t1, hung, rc = sys.argv[1:]
recs = []
try:
    for line in open(f"{d}/corpus/corpus.jsonl"):
        r = json.loads(line)
        for k in ("fetched_at", "date", "warc_offset", "warc_file", "warc_record_id"):
            r.pop(k, None)
        recs.append(json.dumps(r, sort_keys=True))
except FileNotFoundError:
    pass
digest = hashlib.sha256("\n".join(sorted(recs)).encode()).hexdigest()[:12]
try:
    fetched = json.load(open(f"{d}/state/status.json"))["counters"]["fetched"]
except Exception:
    fetched = None
woken = sum("woken by the watchdog" in l for l in open(f"{d}/crawl.log", errors="replace"))
row = {"run": int(i), "wall_s": round(float(t1) - float(t0), 1), "pages": fetched, "records": len(recs),
       "corpus": digest, "watchdog": woken, "hung": hung, "rc": int(rc)}
print(f'{i} | {row["wall_s"]} | {fetched} | {len(recs)} | {digest} | {woken} | {hung}' + ("" if rc == "0" else f" (exit {rc})"))
with open(f"{d}/../rows.jsonl", "a") as f:
    f.write(json.dumps(row) + "\n")
PY
  if [ "$hung" = no ] && [ "${STRESS_KEEP:-0}" != 1 ]; then rm -rf "$dir/state" "$dir/corpus/warc"; fi
done
python3 - "$work/rows.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
hangs = [r["run"] for r in rows if r["hung"] != "no"]
corpora = sorted({(r["corpus"], r["records"]) for r in rows})
print(f"runs: {len(rows)}; hangs: {len(hangs)} {hangs if hangs else ''}; runs with watchdog wake-ups: "
      f"{sum(r['watchdog'] > 0 for r in rows)}; failed exits: {sum(r['rc'] != 0 for r in rows)}")
print(f"distinct corpora: {len(corpora)} {corpora}; record counts: {sorted({r['records'] for r in rows})}, "
      f"pages: {sorted({r['pages'] for r in rows}, key=str)}")
print(f"median wall: {statistics.median(r['wall_s'] for r in rows):.1f} s")
counts = {(r["records"], r["pages"]) for r in rows}
sys.exit(1 if hangs or len(counts) > 1 or any(r["rc"] for r in rows) else 0)
PY
