#!/usr/bin/env bash
# Memory of sitemaps from hostile hosts (issue 52, item 6): HOSTS hosts (default 40) whose
# robots.txt each names a gzip sitemap bomb (1 GiB of zeros in about 1 MB) and a 43 MB sitemap
# of 50,000 URLs (on another host, so none is queued). nginx serves them on 127.0.0.1; the crawl
# (delay 0, 5 pages per host) runs under /usr/bin/time -v, RUNS times (default 1). Prints
# per run the peak RSS, the wall time and the sitemaps read; then their medians.
#
#   scripts/bench-sitemaps.sh            # HOSTS=40 RUNS=1
#   WEBCORPUS_BIN=path/to/webcorpus HOSTS=40 RUNS=3 scripts/bench-sitemaps.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
helper="$repo/scripts/bench_crawl.py"
# shellcheck source=lib/nginx.sh
. "$repo/scripts/lib/nginx.sh"
hosts=${HOSTS:-40}
runs=${RUNS:-1}
if [ -z "${WEBCORPUS_BIN:-}" ]; then
  cargo build --release
fi
bin=${WEBCORPUS_BIN:-target/release/webcorpus}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
if [ ! -x /usr/bin/time ]; then
  echo "/usr/bin/time not found: installing it (apt-get install time)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-sitemaps.XXXXXX")
trap 'stop_nginx; rm -rf "$work"' EXIT

python3 - "$work/www" "$hosts" "$work/hosts.txt" "$work/seeds.txt" <<'PY'
import gzip, os, sys
root, n, hosts_file, seeds_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
shared = os.path.join(root, "_shared")
os.makedirs(shared)
with gzip.open(os.path.join(shared, "bomb.xml.gz"), "wb", compresslevel=9) as f:
    f.write(b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')
    zeros = bytes(1 << 20)
    for _ in range(1024):
        f.write(zeros)
pad = "x" * 800
with open(os.path.join(shared, "big.xml"), "w") as f:
    f.write('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    for i in range(50_000):
        f.write(f"<url><loc>http://elsewhere.bench.test/p/{i}/{pad}</loc></url>\n")
    f.write("</urlset>\n")
names = [f"s{i}.sitemaps.bench.test" for i in range(n)]
for h in names:
    d = os.path.join(root, h)
    os.makedirs(d)
    for name in ("bomb.xml.gz", "big.xml"):
        os.link(os.path.join(shared, name), os.path.join(d, name))
    with open(os.path.join(d, "robots.txt"), "w") as f:
        f.write(f"User-agent: *\nAllow: /\nSitemap: http://{h}/bomb.xml.gz\nSitemap: http://{h}/big.xml\n")
    with open(os.path.join(d, "index.html"), "w") as f:
        f.write("<html><body><p>" + "The front page of a site whose sitemaps are hostile. " * 20 + "</p></body></html>")
open(hosts_file, "w").write("\n".join(names) + "\n")
open(seeds_file, "w").write("".join(f"http://{h}/\n" for h in names))
PY
chmod -R a+rX "$work"
start_nginx "$work/nginx" "$work/www"
python3 "$helper" crawl-config --base "$repo/config.toml" --out "$work/config.toml" \
  --addr "127.0.0.1:$port" --hosts-file "$work/hosts.txt"
echo "$hosts hosts, each naming a 1 GiB gzip bomb and a 43 MB sitemap; nginx on 127.0.0.1:$port" >&2
printf '%-4s %12s %8s %s\n' run "peak RSS MB" "wall s" "crawl summary"
peaks=()
walls=()
for r in $(seq 1 "$runs"); do
  rm -rf "$work/state" "$work/corpus"
  /usr/bin/time -v -o "$work/time.txt" "$bin" crawl --seeds "$work/seeds.txt" --config "$work/config.toml" \
    --state "$work/state" --out "$work/corpus" --min-delay 0s --max-pages-per-host 5 --no-warc --quiet \
    >"$work/crawl.log" 2>&1 || true
  peak=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/time.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; printf "%.1f", s}' "$work/time.txt")
  summary=$(grep -E "sitemaps and|crawl finished" "$work/crawl.log" | tr '\n' ' ' | cut -c1-160)
  printf '%-4s %12s %8s %s\n' "$r" "$peak" "$wall" "$summary"
  peaks+=("$peak")
  walls+=("$wall")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "median of $runs: peak RSS $(median "${peaks[@]}") MB, wall $(median "${walls[@]}") s"
