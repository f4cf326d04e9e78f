# Sourced by the benchmark and stress scripts after `repo` is set and the working directory
# is the repository: sets `shared` (WEBCORPUS_SHARED, default ../shared) and `helper`
# (scripts/bench_crawl.py), sources lib/nginx.sh, and defines resolve_bin.

shared=${WEBCORPUS_SHARED:-$repo/../shared}
helper="$repo/scripts/bench_crawl.py"
# shellcheck source=nginx.sh
. "$repo/scripts/lib/nginx.sh"

# Set `bin` to the absolute path of the webcorpus binary: WEBCORPUS_BIN, or
# target/release/webcorpus built with cargo when WEBCORPUS_BIN is unset; exits 1 when it is not
# an executable.
resolve_bin() {
  if [ -z "${WEBCORPUS_BIN:-}" ]; then
    cargo build --release --quiet
  fi
  bin=${WEBCORPUS_BIN:-target/release/webcorpus}
  [ -x "$bin" ] || { echo "error: binary $bin not found or not executable" >&2; exit 1; }
  bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
}
