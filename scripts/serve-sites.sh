#!/usr/bin/env bash
# Serve the real web sites of ../shared/sites on 127.0.0.1:8700 (by Host header), the
# loopback stand-in for the web that config.toml's [net.resolve] points the demo hosts to.
#
#   scripts/serve-sites.sh                      # serve until Ctrl-C
#   scripts/serve-sites.sh COMMAND [ARGS...]    # serve while COMMAND runs, then stop
#
# Environment: WEBCORPUS_SHARED (default: ../shared beside the repository), SERVE_ADDR
# (default 127.0.0.1:8700), SERVE_ARGS (extra arguments for the server, e.g.
# "--cleanportaleval DIR").
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${WEBCORPUS_SHARED:-$repo/../shared}
addr=${SERVE_ADDR:-127.0.0.1:8700}
if [ ! -d "$shared/sites" ]; then
  echo "error: $shared/sites not found (set WEBCORPUS_SHARED to the shared folder)" >&2
  exit 1
fi
cd "$repo"
# The build is shown: on a fresh clone it takes minutes (see the README's first-run note).
cargo build --release --example serve_sites
server="$repo/target/release/examples/serve_sites"
if [ $# -eq 0 ]; then
  exec "$server" --addr "$addr" --sites "$shared/sites" ${SERVE_ARGS:-}
fi
log=$(mktemp)
"$server" --addr "$addr" --sites "$shared/sites" ${SERVE_ARGS:-} >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  grep -q '^READY' "$log" && break
  if ! kill -0 $pid 2>/dev/null; then cat "$log" >&2; exit 1; fi
  sleep 0.1
done
echo "serving ../shared/sites on $addr" >&2
"$@"
