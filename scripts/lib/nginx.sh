# Sourced by the benchmark and stress scripts: a private nginx on a free 127.0.0.1 port.
#
#   start_nginx PREFIX ROOT [NGINX-CONF OPTIONS...]
#
# writes PREFIX/nginx.conf (scripts/bench_crawl.py nginx-conf: root by Host header, or the five
# shared sites with --shared; --proxy-leaves PORT for the frontier benchmark), starts nginx in the background (apt-get installed if missing),
# retries with another port when one is taken, and sets `nginx_pid` and `port`; exits 1 with
# nginx's error log when it does not start. `stop_nginx` stops it. Needs `helper` (the path of
# scripts/bench_crawl.py).
start_nginx() {
  local prefix=$1 root=$2
  shift 2
  if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    echo "nginx not found: installing it (apt-get install nginx)" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
  fi
  local nginx_bin
  nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
  mkdir -p "$prefix"
  nginx_pid=
  port=
  local up args
  for _ in 1 2 3 4 5; do
    port=$(python3 "$helper" free-port)
    args=(nginx-conf --prefix "$prefix" --port "$port" --root "$root" "$@")
    python3 "$helper" "${args[@]}"
    "$nginx_bin" -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" &
    nginx_pid=$!
    up=0
    for _ in $(seq 1 50); do
      if (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=1; break; fi
      kill -0 "$nginx_pid" 2>/dev/null || break
      sleep 0.1
    done
    [ "$up" = 1 ] && break
    kill -TERM "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
    nginx_pid=
  done
  if [ -z "$nginx_pid" ]; then
    echo "error: nginx did not start:" >&2
    cat "$prefix/error.log" >&2 || true
    exit 1
  fi
  : >"$prefix/access.log"
}

stop_nginx() {
  if [ -n "${nginx_pid:-}" ]; then
    kill -TERM "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
    nginx_pid=
  fi
}
