#!/usr/bin/env bash
# Cluster benchmark: one crawl on 1, 2 and 4 workers sharing a Redis server, on this machine,
# over the synthetic many-host sites of scripts/bench-crawl.sh, and the cost of the two ways to
# deduplicate across workers.
#
#   scripts/bench-cluster.sh [HOSTS] [DELAY] [WORKER COUNTS...]   # defaults: 200 1s 1 2 4
#   scripts/bench-cluster.sh 400 500ms 1 2 4
#
# Sites: HOSTS hosts h0001.bench.test ... of 20 real pages each (bench_crawl.py sites), served
# by nginx on a free 127.0.0.1 port. For each worker count N: a fresh redis-server (Debian's
# package, apt-get installed if missing) on a free port; N `webcorpus crawl --cluster ...
# --worker-id wI` processes started together, each with its own state and corpus, until the
# crawl ends. Printed per run: wall time; pages fetched per worker and in total; pages/s per
# worker and in total (pages / wall time); Redis used_memory before, at its peak and at the end;
# the most stream entries queued at once; Redis bytes per queued URL (stream entry, measured by
# adding 100,000 entries of the crawl's own payloads to a scratch stream) and per seen URL
# (seen sets); Redis bytes per host (what the end state holds beyond the seen sets, divided by
# the hosts); Redis commands per page fetched (INFO commandstats, the script's own INFO and
# XLEN calls excluded).
# Dedup across workers, on the largest run's corpora: (a) the batch pass, `webcorpus dedup`
# over the workers' corpora in worker order: time, MB/s, duplicates dropped; (b) a shared
# n-gram set in Redis: the corpora's distinct word 7-gram hashes (8 bytes each) loaded into 64
# sharded sets: Redis bytes per n-gram, and the commands a worker would send per page.
# Then one JSON line.
#
# Environment: WEBCORPUS_BIN (default target/release/webcorpus, built when unset),
# WEBCORPUS_SHARED (default ../shared), BENCH_TIMEOUT (seconds per run, default 600),
# BENCH_KEEP=1 keeps the work directory, TMPDIR. Loopback only. Run it on an idle machine.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
shared=${WEBCORPUS_SHARED:-$repo/../shared}
crawl_helper="$repo/scripts/bench_crawl.py"
helper="$repo/scripts/bench_cluster.py"
timeout_s=${BENCH_TIMEOUT:-600}
hosts=${1:-200}
delay=${2:-1s}
shift $(($# < 2 ? $# : 2))
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(1 2 4)
case "$hosts" in '' | *[!0-9]*) echo "error: HOSTS must be a number, got '$hosts'" >&2; exit 2 ;; esac
[ -d "$shared/sites" ] || { echo "error: $shared/sites not found (set WEBCORPUS_SHARED)" >&2; exit 1; }

if [ -z "${WEBCORPUS_BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${WEBCORPUS_BIN:-target/release/webcorpus}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
for pkg in nginx redis-server; do
  if ! command -v "$pkg" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$pkg" ]; then
    echo "$pkg not found: installing it (apt-get)" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null
  fi
done
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-cluster.XXXXXX")
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

python3 "$crawl_helper" sites --out "$work" --hosts "$hosts" --shared-sites "$shared/sites"
mkdir -p "$work/nginx"
port=$(python3 "$crawl_helper" free-port)
python3 "$crawl_helper" nginx-conf --prefix "$work/nginx" --port "$port" --root "$work/sites"
"$nginx_bin" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
pids+=($!)
for _ in $(seq 1 50); do (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
python3 "$crawl_helper" crawl-config --base "$repo/config.toml" --out "$work/config.toml" \
  --addr "127.0.0.1:$port" --hosts-file "$work/hosts.txt"

# Baseline: the single-machine crawl (no Redis) of the same sites.
echo "run: single-machine crawl, $hosts hosts at --min-delay $delay" >&2
t0=$(date +%s.%N)
timeout --signal=INT --kill-after=30 "$timeout_s" "$bin" crawl --seeds "$work/seeds.txt" --config "$work/config.toml" \
  --state "$work/single/state" --out "$work/single/corpus" --min-delay "$delay" --quiet >"$work/single.log" 2>&1 \
  || echo "warning: the single-machine crawl failed; see $work/single.log" >&2
t1=$(date +%s.%N)
"$bin" stats --state "$work/single/state" --json >"$work/single-stats.json"
python3 "$helper" single --stats "$work/single-stats.json" --wall "$(python3 -c "print($t1 - $t0)")" \
  --hosts "$hosts" >"$work/single.json"

results=()
for n in "${counts[@]}"; do
  run="$work/n$n"
  mkdir -p "$run"
  rport=$(python3 "$crawl_helper" free-port)
  redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly no >"$run/redis.log" 2>&1 &
  rpid=$!
  pids+=("$rpid")
  for _ in $(seq 1 50); do redis-cli -p "$rport" ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis-cli -p "$rport" config resetstat >/dev/null
  : >"$work/nginx/access.log"
  python3 "$helper" watch --port "$rport" --out "$run/watch.json" --name "bench$n" &
  watch_pid=$!
  echo "run: $n workers, $hosts hosts at --min-delay $delay, redis on $rport" >&2
  t0=$(date +%s.%N)
  workers=()
  for i in $(seq 1 "$n"); do
    timeout --signal=INT --kill-after=30 "$timeout_s" "$bin" crawl --seeds "$work/seeds.txt" \
      --config "$work/config.toml" --state "$run/w$i/state" --out "$run/w$i/corpus" --min-delay "$delay" \
      --cluster "redis://127.0.0.1:$rport/" --worker-id "w$i" --crawl-name "bench$n" --quiet \
      >"$run/w$i.log" 2>&1 &
    workers+=($!)
  done
  rc=0
  for p in "${workers[@]}"; do wait "$p" || rc=$?; done
  t1=$(date +%s.%N)
  kill -TERM "$watch_pid" 2>/dev/null || true
  wait "$watch_pid" 2>/dev/null || true
  [ "$rc" = 0 ] || { echo "warning: a worker exited with $rc; see $run/w*.log" >&2; tail -n 5 "$run"/w*.log >&2; }
  python3 "$helper" report --port "$rport" --name "bench$n" --workers "$n" --hosts "$hosts" \
    --wall "$(python3 -c "print($t1 - $t0)")" --watch "$run/watch.json" --run "$run" --bin "$bin" \
    --config "$work/config.toml" >"$run/report.json"
  results+=("$run/report.json")
  last_run=$run
  last_port=$rport
  last_n=$n
  # the redis of the last run stays up for the dedup comparison
  if [ "$n" != "${counts[-1]}" ]; then kill -TERM "$rpid" 2>/dev/null || true; fi
done

python3 "$helper" dedup-cost --port "$last_port" --run "$last_run" --workers "$last_n" --bin "$bin" \
  --config "$work/config.toml" >"$work/dedup.json"
python3 "$helper" table --dedup "$work/dedup.json" --single "$work/single.json" "${results[@]}"
