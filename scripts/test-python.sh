#!/usr/bin/env bash
# The Python package's tests (python/tests, pytest), as the README's test command runs them
# after `cargo test`: a virtual environment in target/python-venv with pytest, datatrove,
# warcio and trafilatura from PyPI, the package built from python/ by pip (maturin) in cargo's
# dev profile (PYTHON_PROFILE=release for the build `pip install ./python` makes), the
# `webcorpus` binary of this checkout to compare with, then pytest. Needs python3 with venv
# and ../shared beside the repository; fails when either is missing. Extra arguments go to
# pytest.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# shellcheck source=lib/python-venv.sh
. "$repo/scripts/lib/python-venv.sh"
python_venv "${PYTHON_PROFILE:-dev}"
cargo build --quiet --bin webcorpus
# From the repository root: python/ on sys.path would shadow the installed package.
exec "$venv/bin/python" -m pytest -q python/tests "$@"
