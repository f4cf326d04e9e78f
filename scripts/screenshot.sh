#!/usr/bin/env bash
# Screenshot of an HTML file (a `webcorpus show` page, the crawl's status page) in headless
# Chromium (Debian's package, apt-get installed when missing). Nothing is fetched from the
# network: the pages webcorpus writes are self-contained.
#
#   scripts/screenshot.sh show.html show.png [1100,2200]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 PAGE.html OUT.png [WIDTH,HEIGHT]" >&2; exit 2; }
page=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
size=${3:-1100,2200}
if ! command -v chromium >/dev/null 2>&1; then
  echo "chromium not found: installing it (apt-get install chromium)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --window-size="$size" --screenshot="$out" "file://$page" 2>/dev/null
echo "$out"
