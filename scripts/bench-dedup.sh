#!/usr/bin/env bash
# Dedup benchmark: throughput and peak memory of `webcorpus dedup IN.jsonl --out OUT.jsonl`
# (Onion paragraph deduplication of an existing JSONL corpus).
#
#   scripts/bench-dedup.sh            # a 40 MB corpus (MB of "text" fields)
#   BENCH_DEDUP_MB=30 scripts/bench-dedup.sh
#
# The corpus (scripts/bench_crawl.py dedup-corpus, fixed random seed) is built from the gold texts
# of ../shared/data (every set with full-text gold, about 19 MB of text): records
# {"url", "text", "paragraphs": [{"kind": "paragraph", "text"}]}, first every gold text once, then
# passes over them again until the size is reached, each document either an exact copy (half) or
# a variant: paragraphs dropped (5 %), replaced by a paragraph of another document (10 %), one
# word changed (15 %), and sometimes a new paragraph (shuffled words of one of its own). So the
# input holds exact duplicate documents, near-duplicate paragraphs and paragraphs shared across
# documents.
#
# `webcorpus dedup` runs BENCH_RUNS times (default 5) under `/usr/bin/time -v`; its own summary
# (documents, paragraphs, duplicates dropped, MB/s, and the MB/s of Onion alone: shingling,
# look-ups and inserts, without reading, JSON and writing) is shown for each run, then the
# medians over the runs: MB/s of text (bytes of the input's "text" fields / wall seconds),
# Onion-alone MB/s, MB/s of the JSONL file, peak RSS, CPU; then one JSON line. Every run must
# write the same output (checked).
#
# Environment: WEBCORPUS_BIN (default target/release/webcorpus, built with cargo when unset),
# WEBCORPUS_SHARED (default ../shared beside the repository), BENCH_DEDUP_MB (default 40),
# BENCH_RUNS (default 5),
# BENCH_TIMEOUT (seconds, default 600), BENCH_KEEP=1 keeps the work directory, TMPDIR.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# shellcheck source=lib/common.sh
. "$repo/scripts/lib/common.sh"
mb=${BENCH_DEDUP_MB:-40}
runs=${BENCH_RUNS:-5}
case "$runs" in '' | *[!0-9]* | 0) echo "error: BENCH_RUNS must be a positive number, got '$runs'" >&2; exit 2 ;; esac
timeout_s=${BENCH_TIMEOUT:-600}
[ -d "$shared/data" ] || { echo "error: $shared/data not found (set WEBCORPUS_SHARED)" >&2; exit 1; }

resolve_bin
if [ ! -x /usr/bin/time ]; then
  echo "/usr/bin/time not found: installing it (apt-get install time)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-dedup.XXXXXX")
run_pid=
cleanup() {
  if [ -n "$run_pid" ]; then
    kill -TERM "$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
  fi
  if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(date +%s.%N)
python3 "$helper" dedup-corpus --data "$shared/data" --out "$work/in.jsonl" --mb "$mb" >"$work/meta.txt"
t1=$(date +%s.%N)
python3 - "$work/in.jsonl.meta.json" "$t0" "$t1" <<'PY' >&2
import json, sys
m = json.load(open(sys.argv[1]))
print(f"corpus: {m['records']:,} records from {m['gold_documents']:,} gold texts "
      f"({m.get('original', 0):,} originals, {m.get('exact_copy', 0):,} exact copies, {m.get('variant', 0):,} variants), "
      f"{m['text_bytes'] / 1e6:.1f} MB of text, {m['file_bytes'] / 1e6:.1f} MB of JSONL, "
      f"built in {float(sys.argv[3]) - float(sys.argv[2]):.1f} s")
PY

# The subcommand must exist (it is new): say so clearly instead of timing a usage error.
if ! "$bin" dedup --help >/dev/null 2>&1; then
  echo "error: $bin has no 'dedup' subcommand (\`$bin dedup --help\` fails); this benchmark needs a" >&2
  echo "       binary with \`webcorpus dedup IN.jsonl --out OUT.jsonl\`. The corpus was built: $work/in.jsonl" >&2
  exit 3
fi

: >"$work/walls.txt"
for run in $(seq 1 "$runs"); do
  t_start=$(date +%s.%N)
  # In the background, so that Ctrl-C reaches the trap (bash runs traps between commands only).
  timeout --signal=INT --kill-after=30 "$timeout_s" \
    /usr/bin/time -v -o "$work/time.$run.txt" "$bin" dedup "$work/in.jsonl" --out "$work/out.$run.jsonl" \
    >"$work/dedup.$run.log" 2>&1 &
  run_pid=$!
  rc=0
  wait "$run_pid" || rc=$?
  run_pid=
  t_end=$(date +%s.%N)
  echo "--- run $run: webcorpus dedup output:"
  cat "$work/dedup.$run.log"
  if [ "$rc" != 0 ]; then
    echo "error: webcorpus dedup exited with status $rc (124 = stopped after ${timeout_s}s)" >&2
    exit 1
  fi
  if [ "$run" -gt 1 ] && ! cmp -s "$work/out.1.jsonl" "$work/out.$run.jsonl"; then
    echo "error: run $run wrote another output than run 1" >&2
    exit 1
  fi
  echo "$t_start $t_end" >>"$work/walls.txt"
done
echo "---"
python3 -B - "$helper" "$work" "$runs" <<'PY'
import importlib.util, json, os, re, statistics, sys
helper, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
spec = importlib.util.spec_from_file_location("bench_crawl", helper)
bc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bc)
meta = json.load(open(os.path.join(work, "in.jsonl.meta.json")))
walls = [float(b) - float(a) for a, b in (l.split() for l in open(os.path.join(work, "walls.txt")))]
tvs = [bc.parse_time_v(os.path.join(work, f"time.{i}.txt")) for i in range(1, runs + 1)]
onion = []
for i in range(1, runs + 1):
    m = re.search(r"Onion alone: ([0-9.]+) s", open(os.path.join(work, f"dedup.{i}.log")).read())
    if m:
        onion.append(float(m.group(1)))
wall = statistics.median(walls)
tv = {"peak_rss_kb": statistics.median(t["peak_rss_kb"] for t in tvs if "peak_rss_kb" in t)} if tvs else {}
tv["user_s"] = statistics.median(t.get("user_s", 0.0) + t.get("sys_s", 0.0) for t in tvs)
onion_s = statistics.median(onion) if onion else None
out = os.path.join(work, "out.1.jsonl")
out_records = out_text = 0
if os.path.exists(out):
    with open(out, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                out_records += 1
                out_text += len(json.loads(line).get("text", "").encode("utf-8"))
cpu = tv["user_s"]
text_mb = meta["text_bytes"] / 1e6
res = {
    "bench": "dedup", "runs": runs,
    "records_in": meta["records"], "text_mb_in": round(meta["text_bytes"] / 1e6, 2),
    "jsonl_mb_in": round(meta["file_bytes"] / 1e6, 2),
    "records_out": out_records, "text_mb_out": round(out_text / 1e6, 2),
    "wall_s": round(wall, 3),
    "text_mb_per_s": round(text_mb / wall, 2) if wall > 0 else None,
    "text_mb_per_s_runs": [round(text_mb / w, 1) for w in walls],
    "onion_mb_per_s": round(text_mb / onion_s, 1) if onion_s else None,
    "onion_mb_per_s_runs": [round(text_mb / o, 1) for o in onion],
    "jsonl_mb_per_s": round(meta["file_bytes"] / 1e6 / wall, 2) if wall > 0 else None,
    "peak_rss_mb": round(tv["peak_rss_kb"] / 1024, 1) if "peak_rss_kb" in tv else None,
    "cpu_s": round(cpu, 2),
    "cpu_over_wall": round(cpu / wall, 3) if wall > 0 else None,
}
rows = [
    ("input records / text / JSONL", f"{res['records_in']:,} / {res['text_mb_in']} MB / {res['jsonl_mb_in']} MB"),
    ("output records / text", f"{res['records_out']:,} / {res['text_mb_out']} MB"),
    (f"wall time (median of {runs})", f"{res['wall_s']:.2f} s"),
    ("MB/s of text (text bytes in / wall)", f"{res['text_mb_per_s']} (runs: {res['text_mb_per_s_runs']})"),
    ("MB/s of text, Onion alone (one core)", f"{res['onion_mb_per_s']} (runs: {res['onion_mb_per_s_runs']})"),
    ("target: Onion alone >= 200 MB/s", "met" if (res['onion_mb_per_s'] or 0) >= 200 else "NOT met"),
    ("MB/s of JSONL", f"{res['jsonl_mb_per_s']}"),
    ("peak RSS", f"{res['peak_rss_mb']} MB"),
    ("CPU (user+sys) / CPU per wall", f"{res['cpu_s']} s / {res['cpu_over_wall']}"),
]
w = max(len(k) for k, _ in rows)
print(f"{'measure':<{w}} | value")
print(f"{'-' * w}-|-{'-' * 24}")
for k, v in rows:
    print(f"{k:<{w}} | {v}")
print(json.dumps(res))
PY
