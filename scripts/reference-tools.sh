#!/usr/bin/env bash
# Reference numbers of the external extractors people use (trafilatura, jusText,
# readability-lxml, boilerpy3, resiliparse) on every shared evaluation set, scored by our own
# scorer (`webcorpus eval --reference`), so they compare exactly with our extractors.
#
#   scripts/reference-tools.sh                 # every tool, every set in ../shared/data
#   TOOLS="trafilatura justext" scripts/reference-tools.sh cleaneval modern2026-dev
#   WEBCORPUS_SHARED=/path/to/shared scripts/reference-tools.sh
#
# 1. A venv in target/reference-venv with pinned versions (a tool that does not install is
#    skipped with a loud message; resiliparse only from a binary wheel).
# 2. scripts/reference_tools.py runs each tool, one at a time, on one process and thread (under
#    `nice`), over every page: target/reference/<tool>/<set>/<id>.txt, timing.json (extraction
#    call only) and target/reference/<tool>/meta.json (version, settings).
# 3. `webcorpus eval --extractor default --reference <tool>=target/reference/<tool> ...` prints
#    the tables (also target/reference/tables.md); scripts/eval-all.sh then adds the reference
#    rows to docs/EVALUATION.md.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${WEBCORPUS_SHARED:-$repo/../shared}
data="$shared/data"
cd "$repo"
if [ ! -d "$data" ]; then
  echo "evaluation data not found at $data; set WEBCORPUS_SHARED" >&2
  exit 1
fi
sets=("$@")
if [ ${#sets[@]} -eq 0 ]; then
  for d in "$data"/*/; do
    [ -f "$d/gold.jsonl" ] && sets+=("$(basename "$d")")
  done
fi
tools=(${TOOLS:-trafilatura justext readability boilerpy3 resiliparse})

# tool name -> pinned pip requirement(s)
declare -A pins=(
  [trafilatura]="trafilatura==2.3.1"
  [justext]="justext==3.0.2"
  [readability]="readability-lxml==0.9"
  [boilerpy3]="boilerpy3==1.0.7"
  [resiliparse]="resiliparse==2.0.1"
)
venv=target/reference-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
py="$venv/bin/python"
ok=()
for tool in "${tools[@]}"; do
  req=${pins[$tool]:-}
  if [ -z "$req" ]; then
    echo "!!!!! unknown tool $tool (known: ${!pins[*]}): skipped" >&2
    continue
  fi
  extra=()
  [ "$tool" = resiliparse ] && extra+=(--only-binary :all:)
  # shellcheck disable=SC2086
  if "$py" -m pip install --quiet --disable-pip-version-check "${extra[@]}" $req; then
    ok+=("$tool")
  else
    echo "!!!!! $tool ($req) did not install: SKIPPED, no reference rows for it" >&2
  fi
done
"$py" -m pip freeze --disable-pip-version-check >target/reference-venv/freeze.txt

cargo build --release --quiet
refs=()
for tool in "${ok[@]}"; do
  echo "running $tool on ${sets[*]} ..." >&2
  if nice -n 10 "$py" scripts/reference_tools.py "$tool" "$data" "target/reference/$tool" "${sets[@]}" \
    2>"target/reference-$tool.log"; then
    # The per-set summary lines; the page errors (pages without an output file) are counted.
    grep -E "^$tool [^ /]+ [^ /]+: [0-9]+/[0-9]+ pages" "target/reference-$tool.log" >&2 || true
    echo "  $(grep -cE "^$tool [^ ]+/[^ ]+: " "target/reference-$tool.log" || true) page errors (no output" \
      "file, scored as discards): target/reference-$tool.log" >&2
    refs+=(--reference "$tool=target/reference/$tool")
  else
    echo "!!!!! $tool failed (target/reference-$tool.log): SKIPPED" >&2
    tail -5 "target/reference-$tool.log" >&2
  fi
done
[ ${#refs[@]} -gt 0 ] || { echo "no tool ran" >&2; exit 1; }
list=$(IFS=,; echo "${sets[*]}")
WEBCORPUS_DATA="$data" target/release/webcorpus eval --data "$list" --extractor default "${refs[@]}" \
  --json target/reference/eval.json | tee target/reference/tables.md
