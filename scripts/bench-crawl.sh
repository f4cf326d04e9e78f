#!/usr/bin/env bash
# Crawl benchmark: how close a crawl of many small hosts comes to the ideal set by the politeness
# delay, and what it costs (memory, CPU, disk).
#
#   scripts/bench-crawl.sh [HOSTS] [DELAY]      # defaults: 200 hosts, 1s
#   scripts/bench-crawl.sh 1000 1s
#   scripts/bench-crawl.sh --shared-sites       # the five real sites of ../shared/sites, delay 0
#   scripts/bench-crawl.sh --shared-sites --vs-scrapy   # and Scrapy fetch-only on the same URLs
#
# Synthetic mode: HOSTS hosts h0001.bench.test ... with 20 HTML pages each, taken from the real
# pages of ../shared/sites (host i uses real site i mod 5 and the next 20 of its pages, so hosts
# differ), every <a href> rewritten to a relative link to one of the host's own 20 pages or to one
# of 2 missing pages (404), <base> removed, plus a robots.txt allowing all: 23 requests per host.
# nginx (apt-get installed if missing) serves them on a free 127.0.0.1 port, root by Host header;
# the crawl uses a copy of config.toml whose [net.resolve] maps every host there, and
# `crawl --min-delay DELAY --quiet` runs under `/usr/bin/time -v` (timeout BENCH_TIMEOUT, 600 s).
# --shared-sites: nginx serves ../shared/sites by Host header, the hosts of config.toml's
# [net.resolve] point to it, seeds are seeds/example.txt, `--min-delay 0s`. With --vs-scrapy,
# scripts/scrapy_fetch.py then fetches every request of the crawl's access log with Scrapy
# (16 in flight, BENCH_SCRAPY_PER_HOST per host: 1 by default, the crawl's own politeness;
# no delay, no parsing), through the same nginx, and the crawl's
# wall time is printed as a ratio of Scrapy's (the crawl parses, extracts, learns and writes).
#
# Measured (from nginx's access log: $msec = end of a request, $msec - $request_time = its start):
#   wall time; ideal time = max over hosts of (requests to the host - 1) x DELAY; wall / ideal;
#   requests/s and the share of the ideal request rate (= ideal / wall);
#   the longest time in which no request was in flight while some host was due (a host is due
#   from the end of its previous request + DELAY until the start of its next one);
#   the request phase (start of the first request to the end of the last) and ideal / that (the
#   fetching's share of the ideal rate, without the learning and extraction left after the last
#   request); peak RSS (time -v); state on disk (du -sb) per answered request; CPU (user+sys)
#   per HTML page answered 200, CPU / wall, and CPU / cores (the least wall time the crawl's CPU
#   work needs on this machine).
# Printed as a table, then one JSON line.
#
# Environment: WEBCORPUS_BIN (default target/release/webcorpus, built with cargo when unset),
# WEBCORPUS_SHARED (default ../shared beside the repository), BENCH_CONFIG (the config copied,
# default config.toml; an older binary may need the config of its own version, e.g.
# `git show REV:config.toml >old.toml`), BENCH_TIMEOUT (crawl time limit, seconds, default 600),
# BENCH_KEEP=1 keeps the work directory (printed), TMPDIR.
# All traffic stays on 127.0.0.1. Run it on an otherwise idle machine: it is a benchmark.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# shellcheck source=lib/common.sh
. "$repo/scripts/lib/common.sh"
timeout_s=${BENCH_TIMEOUT:-600}
base_config=${BENCH_CONFIG:-$repo/config.toml}
[ -f "$base_config" ] || { echo "error: config $base_config not found" >&2; exit 1; }
# Background jobs of a script start with SIGINT ignored; give the crawler the default back.
default_int=()
if env --default-signal=INT true 2>/dev/null; then default_int=(env --default-signal=INT); fi

mode=synthetic
vs_scrapy=0
if [ "${1:-}" = "--shared-sites" ]; then
  mode=shared
  hosts=0
  delay=0s
  shift
  if [ "${1:-}" = "--vs-scrapy" ]; then vs_scrapy=1; shift; fi
else
  hosts=${1:-200}
  delay=${2:-1s}
fi
case "$hosts" in '' | *[!0-9]*) echo "error: HOSTS must be a number, got '$hosts'" >&2; exit 2 ;; esac
# DELAY: "1s", "500ms", "0" or a number of seconds; the crawler gets it in whole ms or s.
delay_s=$(python3 -c '
import re, sys
m = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*(ms|s)?", sys.argv[1].strip())
if not m:
    sys.exit("error: DELAY must look like 1s, 500ms or 0.5, got %r" % sys.argv[1])
v = float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
print(repr(v))' "$delay")
delay_arg=$(python3 -c 'import sys; ms = round(float(sys.argv[1]) * 1000); print(f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms")' "$delay_s")

[ -d "$shared/sites" ] || { echo "error: $shared/sites not found (set WEBCORPUS_SHARED)" >&2; exit 1; }

resolve_bin

if [ ! -x /usr/bin/time ]; then
  echo "/usr/bin/time not found: installing it (apt-get install time)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-crawl.XXXXXX")
chmod 755 "$work"
nginx_pid=
crawl_pid=
cleanup() {
  if [ -n "$crawl_pid" ]; then # interrupted: stop the crawl (timeout passes TERM on)
    kill -TERM "$crawl_pid" 2>/dev/null || true
    wait "$crawl_pid" 2>/dev/null || true
  fi
  stop_nginx
  if [ "${BENCH_KEEP:-0}" = 1 ]; then
    echo "work directory kept: $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- sites, seeds and hosts
if [ "$mode" = synthetic ]; then
  python3 "$helper" sites --out "$work" --hosts "$hosts" --shared-sites "$shared/sites"
  root="$work/sites"
  seeds="$work/seeds.txt"
  hosts_file="$work/hosts.txt"
else
  root=$(cd "$shared/sites" && pwd)
  seeds="$repo/seeds/example.txt"
  hosts_file=
  hosts=$(grep -cv '^\s*\(#\|$\)' "$seeds")
fi

# --- nginx on a free loopback port (retry if another process takes the port first)
if [ "$mode" = shared ]; then start_nginx "$work/nginx" "$root" --shared; else start_nginx "$work/nginx" "$root"; fi

# --- crawl config: config.toml with [net.resolve] -> nginx
cfg_args=(crawl-config --base "$base_config" --out "$work/config.toml" --addr "127.0.0.1:$port")
[ -n "$hosts_file" ] && cfg_args+=(--hosts-file "$hosts_file")
python3 "$helper" "${cfg_args[@]}"

echo "crawling $hosts hosts ($mode) from $seeds at --min-delay $delay_arg; nginx on 127.0.0.1:$port; work dir $work" >&2
t_start=$(python3 -c 'import time; print(repr(time.time()))')
# In the background, so that Ctrl-C reaches the trap (bash runs traps between commands only).
timeout --signal=INT --kill-after=30 "$timeout_s" \
  /usr/bin/time -v -o "$work/time.txt" "${default_int[@]}" \
  "$bin" crawl --seeds "$seeds" --config "$work/config.toml" --state "$work/state" --out "$work/corpus" \
  --min-delay "$delay_arg" --quiet >"$work/crawl.log" 2>&1 &
crawl_pid=$!
rc=0
wait "$crawl_pid" || rc=$?
crawl_pid=
t_end=$(python3 -c 'import time; print(repr(time.time()))')
if [ "$rc" != 0 ]; then
  echo "warning: the crawl exited with status $rc (124 = stopped after ${timeout_s}s); its last lines:" >&2
  tail -n 20 "$work/crawl.log" >&2
fi
"$bin" stats --state "$work/state" >"$work/stats.txt" 2>&1 || true
state_bytes=$(du -sb "$work/state" 2>/dev/null | cut -f1)

python3 "$helper" report --mode "crawl-$mode" --log "$work/nginx/access.log" --time "$work/time.txt" \
  --delay "$delay_s" --hosts "$hosts" --t-start "$t_start" --t-end "$t_end" \
  --state-bytes "${state_bytes:-0}" --corpus "$work/corpus/corpus.jsonl" --rc "$rc"
[ "$rc" = 0 ] || exit 1
if [ "$vs_scrapy" = 1 ]; then
  cp "$work/nginx/access.log" "$work/crawl-access.log"
  : >"$work/nginx/access.log"
  scrapy=$(python3 "$repo/scripts/scrapy_fetch.py" --log "$work/crawl-access.log" --proxy "127.0.0.1:$port" \
    --per-host "${BENCH_SCRAPY_PER_HOST:-1}")
  python3 - "$scrapy" "$t_start" "$t_end" <<'PY'
import json, sys
s = json.loads(sys.argv[1])
crawl = float(sys.argv[3]) - float(sys.argv[2])
print(f"Scrapy fetch-only, same {s['requests']:,} URLs ({s['answered']:,} answered, {s['per_host']} per host): {s['wall_s']:.2f} s; "
      f"crawl wall / Scrapy wall: {crawl / s['wall_s']:.2f} (target <= 0.6)")
print(json.dumps({"bench": "crawl-vs-scrapy", "crawl_wall_s": round(crawl, 3),
                  **{f"scrapy_{k}": v for k, v in s.items()}, "ratio": round(crawl / s["wall_s"], 3)}))
PY
fi
