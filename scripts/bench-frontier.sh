#!/usr/bin/env bash
# Frontier benchmark: peak memory of the crawler while ONE host has N URLs queued. The target is
# a peak RSS of at most 250 MB that stays flat from 100k to 1M queued URLs (the frontier lives on
# disk, in sled, not in memory).
#
#   scripts/bench-frontier.sh            # N = 100000, then N = 1000000
#   scripts/bench-frontier.sh N          # one run with N queued URLs
#
# nginx (BENCH_FRONTIER_SERVER=nginx, the default) serves the host frontier.bench.test from
# files (scripts/bench_crawl.py frontier-files) and passes the leaves (/p/) to a small Python
# server that holds them; with BENCH_FRONTIER_SERVER=python that server (bench_crawl.py
# frontier-server, 127.0.0.1, free port) serves the whole host, slowly enough to hide a
# committer that falls behind. The host: its seed page links ceil(N / 5000) hub pages, each hub links 5,000
# unique leaf pages /p/<hub>/<j>.html, N leaves in all (hub pages of about 190 KB; 5,000 stays
# below [crawl] max_links_per_page). The crawl (config.toml copy with
# [net.resolve] to the server, --min-delay 0s, --max-pages-per-host N + hubs + 10, so every leaf
# is queued) runs under `/usr/bin/time -v`. The host's queue is FIFO, so the first leaf is asked
# for only after every hub page was fetched (a leaf asked for earlier is answered 404 at once and
# counted as leaves_before_last_hub); the server holds that request unanswered (the crawl
# cannot move on), the script waits until the crawler's CPU time stops growing (every hub
# processed and its links stored: less than 2 % of a core over 2 s), then sends SIGINT to the crawler and waits for it to exit
# (0.5 s after SIGINT the server answers the held request with a 404, so a crawler that finishes
# its requests in flight need not wait for its read timeout; SIGKILL after 60 s).
# `webcorpus stats` on the state then shows how many URLs were queued.
#
# Printed per N: URLs queued (one leaf is in flight, so N - 1), time until all were queued (includes
# the ~2 s idle check), RSS when the last hub was fetched and when interrupted (sampled from /proc
# every 0.2 s), peak RSS (time -v) and when it happened, CPU, state on disk; then one JSON line per N.
# The peak depends on how the links are spread over pages (BENCH_FRONTIER_PER_HUB): compare runs
# with the same value only.
#
# Environment: BENCH_FRONTIER_SERVER (nginx or python), WEBCORPUS_BIN (default target/release/webcorpus, built with cargo when unset),
# BENCH_CONFIG (the config copied, default config.toml; an older binary may need the config of
# its own version), BENCH_FRONTIER_PER_HUB (links per hub page, default 5000), BENCH_TIMEOUT
# (seconds a run may wait for its hubs before it is interrupted anyway, default 600),
# BENCH_KEEP=1 keeps the work directory, TMPDIR. All traffic stays on 127.0.0.1.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
helper="$repo/scripts/bench_crawl.py"
# shellcheck source=lib/nginx.sh
. "$repo/scripts/lib/nginx.sh"
server_kind=${BENCH_FRONTIER_SERVER:-nginx}
case "$server_kind" in nginx | python) ;; *) echo "error: BENCH_FRONTIER_SERVER must be nginx or python" >&2; exit 2 ;; esac
timeout_s=${BENCH_TIMEOUT:-600}
per_hub=${BENCH_FRONTIER_PER_HUB:-5000}
base_config=${BENCH_CONFIG:-$repo/config.toml}
[ -f "$base_config" ] || { echo "error: config $base_config not found" >&2; exit 1; }
# Background jobs of a script start with SIGINT ignored; give the crawler the default back.
default_int=()
if env --default-signal=INT true 2>/dev/null; then default_int=(env --default-signal=INT); fi
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(100000 1000000); fi
for n in "${sizes[@]}"; do
  case "$n" in '' | *[!0-9]*) echo "error: N must be a number, got '$n'" >&2; exit 2 ;; esac
done

if [ -z "${WEBCORPUS_BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${WEBCORPUS_BIN:-target/release/webcorpus}
[ -x "$bin" ] || { echo "error: crawler binary $bin not found or not executable" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
if [ ! -x /usr/bin/time ]; then
  echo "/usr/bin/time not found: installing it (apt-get install time)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-frontier.XXXXXX")
server_pid=
time_pid=
sampler_pid=
stop_server() {
  stop_nginx
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
cleanup() {
  [ -n "$sampler_pid" ] && kill "$sampler_pid" 2>/dev/null
  if [ -n "$time_pid" ] && kill -0 "$time_pid" 2>/dev/null; then
    crawler=$(cat "/proc/$time_pid/task/$time_pid/children" 2>/dev/null || true)
    for p in $crawler; do kill -KILL "$p" 2>/dev/null || true; done
    wait "$time_pid" 2>/dev/null || true
  fi
  stop_server
  if [ "${BENCH_KEEP:-0}" = 1 ]; then
    echo "work directory kept: $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# CPU ticks (user+sys) of a process, or nothing when it is gone.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || true; }
now() { date +%s.%N; }

results=()
for n in "${sizes[@]}"; do
  run="$work/n$n"
  mkdir -p "$run"
  hubs=$(((n + per_hub - 1) / per_hub))
  leaves_only=()
  [ "$server_kind" = nginx ] && leaves_only=(--leaves-only)
  python3 "$helper" frontier-server --n "$n" --per-hub "$per_hub" --port-file "$run/port" \
    --status "$run/status.json" --hold "$timeout_s" "${leaves_only[@]}" 2>"$run/server.log" &
  server_pid=$!
  for _ in $(seq 1 100); do [ -s "$run/port" ] && break; sleep 0.1; done
  [ -s "$run/port" ] || { echo "error: the frontier server did not start" >&2; cat "$run/server.log" >&2; exit 1; }
  port=$(cat "$run/port")
  if [ "$server_kind" = nginx ]; then
    python3 "$helper" frontier-files --root "$run/www/frontier.bench.test" --n "$n" --per-hub "$per_hub"
    chmod -R a+rX "$run"
    start_nginx "$run/nginx" "$run/www" --proxy-leaves "$port"
  fi
  printf 'http://frontier.bench.test/\n' >"$run/seeds.txt"
  printf 'frontier.bench.test\n' >"$run/hosts.txt"
  python3 "$helper" crawl-config --base "$base_config" --out "$run/config.toml" \
    --addr "127.0.0.1:$port" --hosts-file "$run/hosts.txt"
  max_pages=$((n + hubs + 10))
  echo "N=$n: $hubs hub pages x $per_hub links, $server_kind on 127.0.0.1:$port, --max-pages-per-host $max_pages" >&2

  t0=$(now)
  /usr/bin/time -v -o "$run/time.txt" "${default_int[@]}" "$bin" crawl --seeds "$run/seeds.txt" --config "$run/config.toml" \
    --state "$run/state" --out "$run/corpus" --min-delay 0s --max-pages-per-host "$max_pages" --quiet \
    >"$run/crawl.log" 2>&1 &
  time_pid=$!
  crawler=
  for _ in $(seq 1 50); do
    crawler=$(cat "/proc/$time_pid/task/$time_pid/children" 2>/dev/null || true)
    [ -n "$crawler" ] && break
    sleep 0.1
  done
  crawler=${crawler%% *}
  # RSS of the crawler every 0.2 s (when the peak happens: hub processing or later)
  if [ -n "$crawler" ]; then
    (while [ -r "/proc/$crawler/status" ]; do
      r=$(awk '/^VmRSS:/ {print $2}' "/proc/$crawler/status" 2>/dev/null) || break
      [ -n "$r" ] && echo "$(now) $r"
      sleep 0.2
    done) >"$run/rss.tsv" 2>/dev/null &
    sampler_pid=$!
  fi

  # 1. wait for the first leaf request (all hubs fetched), the crawler's exit, or the time limit
  status=waiting
  t_queued=
  while :; do
    if ! kill -0 "$time_pid" 2>/dev/null; then status=exited; break; fi
    if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["first_leaf_at"] else 1)' \
      "$run/status.json" 2>/dev/null; then
      status=all_hubs_fetched
      break
    fi
    if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) - float(sys.argv[2]) > float(sys.argv[3]) else 1)' \
      "$(now)" "$t0" "$timeout_s"; then status=timeout; break; fi
    sleep 0.5
  done
  # 2. wait until the crawler is idle (the last hub processed and committed): at most 4 clock
  #    ticks (normally 40 ms) of CPU time in the last 2 s; at most 300 s
  if [ "$status" = all_hubs_fetched ] && [ -n "$crawler" ]; then
    ticks=()
    for _ in $(seq 1 600); do
      sleep 0.5
      cur=$(cpu_ticks "$crawler")
      [ -z "$cur" ] && break
      ticks+=("$cur")
      k=${#ticks[@]}
      if [ "$k" -ge 5 ] && [ $((cur - ticks[k - 5])) -le 4 ]; then break; fi
    done
    t_queued=$(now)
  fi
  rss_now_kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$crawler/status" 2>/dev/null || echo 0)
  hwm_kb=$(awk '/^VmHWM:/ {print $2}' "/proc/$crawler/status" 2>/dev/null || echo 0)
  # 3. interrupt: SIGINT, then wait. Half a second later the server answers the held leaf
  #    request (404) so that a crawler finishing its requests in flight need not wait for its read
  #    timeout; the server is stopped after 30 s, the crawler killed after 60 s.
  t_int=
  if [ -n "$crawler" ] && kill -0 "$crawler" 2>/dev/null; then
    kill -INT "$crawler" 2>/dev/null || true
    t_int=$(now)
    for i in $(seq 1 120); do
      kill -0 "$time_pid" 2>/dev/null || break
      [ "$i" = 2 ] && kill -USR1 "$server_pid" 2>/dev/null
      [ "$i" = 60 ] && stop_server
      sleep 0.5
    done
    if kill -0 "$time_pid" 2>/dev/null; then
      echo "warning: the crawler did not exit within 60 s of SIGINT: SIGKILL" >&2
      kill -KILL "$crawler" 2>/dev/null || true
    fi
  fi
  wait "$time_pid" 2>/dev/null || true
  time_pid=
  if [ -n "$sampler_pid" ]; then
    kill "$sampler_pid" 2>/dev/null || true
    wait "$sampler_pid" 2>/dev/null || true
    sampler_pid=
  fi
  t_end=$(now)
  stop_server
  "$bin" stats --state "$run/state" >"$run/stats.txt" 2>&1 || true
  state_bytes=$(du -sb "$run/state" 2>/dev/null | cut -f1)
  res=$(python3 -B - "$run" "$n" "$status" "$t0" "${t_queued:-}" "$t_end" "$rss_now_kb" "$hwm_kb" "${state_bytes:-0}" "$helper" "${t_int:-}" <<'PY'
import json, re, sys, importlib.util
run, n, status, t0, tq, t_end, rss_now, hwm, state_bytes, helper, t_int = sys.argv[1:]
spec = importlib.util.spec_from_file_location("bench_crawl", helper)
bc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bc)
tv = bc.parse_time_v(f"{run}/time.txt")
server = json.load(open(f"{run}/status.json"))
try:  # nginx served the hubs: count them in its access log
    server["hubs_served"] = len({l.split()[-1] for l in open(f"{run}/nginx/access.log")
                                 if "/hub/" in l and l.split()[3] == "200"})
except FileNotFoundError:
    pass
samples = []
for line in open(f"{run}/rss.tsv", errors="replace"):
    p = line.split()
    if len(p) == 2:
        samples.append((float(p[0]), int(p[1])))
t_peak, kb_peak = max(samples, key=lambda x: x[1]) if samples else (None, 0)
fl = server["first_leaf_at"]
before = [kb for t, kb in samples if fl and t <= fl]
stats = open(f"{run}/stats.txt", errors="replace").read()
m = re.search(r"queued URLs:\s*([\d,]+)", stats)
queued = int(m.group(1).replace(",", "")) if m else None
res = {
    "bench": "frontier", "n": int(n), "status": status, "queued_urls": queued,
    "hubs_served": server["hubs_served"], "hubs": server["hubs"], "server_requests": server["requests"],
    "leaves_before_last_hub": server["early_leaf_requests"],
    "time_to_queue_s": round(float(tq) - float(t0), 2) if tq else None,
    "wall_s": round(float(t_end) - float(t0), 2),
    "exit_after_sigint_s": round(float(t_end) - float(t_int), 2) if t_int else None,
    "rss_at_interrupt_mb": round(int(rss_now) / 1024, 1),
    "rss_when_all_hubs_fetched_mb": round(before[-1] / 1024, 1) if before else None,
    "sampled_max_rss_mb": round(kb_peak / 1024, 1), "sampled_max_at_s": round(t_peak - float(t0), 1) if t_peak else None,
    "peak_rss_mb": round(tv["peak_rss_kb"] / 1024, 1) if "peak_rss_kb" in tv else round(int(hwm) / 1024, 1),
    "cpu_s": round(tv.get("user_s", 0) + tv.get("sys_s", 0), 2),
    "state_mb": round(int(state_bytes) / 1e6, 1),
}
print(json.dumps(res))
PY
)
  results+=("$res")
  echo "$res" >&2
done

python3 - "${results[@]}" <<'PY'
import json, sys
rows = [json.loads(a) for a in sys.argv[1:]]
def f(v, d=1):
    return "n/a" if v is None else (f"{v:,.{d}f}" if isinstance(v, float) else f"{v:,}")
hdr = ["N", "queued URLs", "time to queue s", "RSS all hubs fetched MB", "RSS at SIGINT MB", "peak RSS MB",
       "peak at s", "CPU s", "state MB", "exit after SIGINT s", "status"]
print(" | ".join(hdr))
print("-|-".join("-" * len(h) for h in hdr))
for r in rows:
    print(" | ".join([f(r["n"]), f(r["queued_urls"]), f(r["time_to_queue_s"]), f(r["rss_when_all_hubs_fetched_mb"]),
                      f(r["rss_at_interrupt_mb"]), f(r["peak_rss_mb"]), f(r["sampled_max_at_s"]), f(r["cpu_s"]),
                      f(r["state_mb"]), f(r["exit_after_sigint_s"]), r["status"]]))
peaks = [r["peak_rss_mb"] for r in rows if r["peak_rss_mb"] is not None]
if peaks:
    ok = max(peaks) <= 250
    flat = len(peaks) < 2 or max(peaks) <= 1.2 * min(peaks)
    print(f"target: peak RSS <= 250 MB and flat (max/min <= 1.2): "
          f"{'met' if ok and flat else 'NOT met'} (max {max(peaks):.0f} MB"
          + (f", ratio {max(peaks) / min(peaks):.2f})" if len(peaks) > 1 else ")"))
for r in rows:
    print(json.dumps(r))
PY
