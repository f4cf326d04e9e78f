#!/usr/bin/env bash
# Python benchmark (issue 53): the same datatrove pipeline (WarcReader -> extractor ->
# JsonlWriter, one task, one worker) with datatrove's Trafilatura() and with webcorpus's
# WebcorpusExtractor (threads=1 and threads=2), on ../shared/sites/warc/*.warc.gz and on
# ../shared/data/modern2026-dev (its pages written into a WARC with warcio), RUNS rounds
# (default 3) round-robin; prints pages/s per extractor and set (median) and the ratios
# against Trafilatura and of two threads against one. The package is built in the release
# profile into target/python-venv (scripts/lib/python-venv.sh).
#
#   scripts/bench-python.sh [RUNS]
#
# Environment: WEBCORPUS_SHARED (default ../shared). Run it on an otherwise idle machine.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
shared=${WEBCORPUS_SHARED:-$repo/../shared}
[ -d "$shared/data" ] || { echo "error: $shared/data not found (set WEBCORPUS_SHARED)" >&2; exit 1; }
# shellcheck source=lib/python-venv.sh
. "$repo/scripts/lib/python-venv.sh"
python_venv release
exec "$venv/bin/python" "$repo/scripts/bench_python.py" --shared "$shared" --runs "${1:-3}"
