# Sourced by scripts/test-python.sh and scripts/bench-python.sh (after `repo` is set):
#
#   python_venv PROFILE
#
# sets `venv` to target/python-venv (created with python3 -m venv when missing; fails with how
# to get venv), installs pytest, datatrove, warcio and trafilatura from PyPI, and builds and
# installs the package in python/ with pip (maturin from PyPI, crates from crates.io) in cargo's
# PROFILE (dev for the tests, release for benchmarks and users).
python_venv() {
  local profile=$1
  venv=$repo/target/python-venv
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" || {
      echo "error: python3 -m venv failed: install python3 with venv (Debian: apt-get install python3-venv)" >&2
      exit 1
    }
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check pytest "datatrove[io]" warcio trafilatura lxml_html_clean
  MATURIN_PEP517_ARGS="--profile $profile" \
    "$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$repo/python"
}
