#!/usr/bin/env python3
"""The measurements of scripts/bench-python.sh (run it, not this file: it builds the package).

For each set (the shared WARC files; modern2026-dev's pages written into one WARC) and each
extractor (datatrove's Trafilatura(), WebcorpusExtractor(threads=1), WebcorpusExtractor(
threads=2)), RUNS rounds round-robin of the pipeline WarcReader -> extractor -> JsonlWriter
(LocalPipelineExecutor, tasks=1, workers=1); pages/s = documents read / wall time of the run.
Prints a table of medians and the ratios, then one JSON line.
"""

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
from io import BytesIO
from pathlib import Path


def modern_warc(shared: Path, out: Path) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    gold = {}
    for line in open(shared / "data" / "modern2026-dev" / "gold.jsonl"):
        r = json.loads(line)
        gold[str(r.get("id", ""))] = r.get("url")
    with open(out, "wb") as f:
        writer = WARCWriter(f, gzip=True)
        for page in sorted((shared / "data" / "modern2026-dev" / "html").glob("*.html.gz")):
            stem = page.name.split(".")[0]
            url = gold.get(stem) or f"https://modern2026.example/{stem}"
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
            rec = writer.create_warc_record(url, "response", payload=BytesIO(gzip.decompress(page.read_bytes())),
                                            http_headers=headers)
            rec.rec_headers.add_header("WARC-Identified-Payload-Type", "text/html")
            writer.write_record(rec)


def run_once(folder: Path, make_step, work: Path) -> tuple:
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter

    out = Path(tempfile.mkdtemp(dir=work))
    t0 = time.perf_counter()
    LocalPipelineExecutor(
        pipeline=[WarcReader(str(folder), glob_pattern="*.warc.gz"), make_step(), JsonlWriter(str(out / "docs"))],
        tasks=1, workers=1, logging_dir=str(out / "logs"), skip_completed=False,
    ).run()
    wall = time.perf_counter() - t0
    stats = json.loads(next((out / "logs" / "stats").glob("*.json")).read_text())
    read = next(s for s in stats if "READER" in s["name"] or "Warc" in s["name"])["stats"]["documents"]["total"]
    ex = next(s for s in stats if "EXTRAC" in s["name"] or "Trafilatura" in s["name"] or "webcorpus" in s["name"])
    return read, wall, ex["stats"].get("forwarded", 0), ex["stats"].get("timeout", 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", required=True)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    shared = Path(a.shared)
    from datatrove.pipeline.extractors import Trafilatura
    from datatrove.utils.logging import logger

    from webcorpus.datatrove import WebcorpusExtractor

    logger.remove()
    work = Path(tempfile.mkdtemp(prefix="bench-python."))
    (work / "modern").mkdir()
    modern_warc(shared, work / "modern" / "modern2026-dev.warc.gz")
    sets = {"shared WARCs": shared / "sites" / "warc", "modern2026-dev": work / "modern"}
    steps = {
        "Trafilatura()": lambda: Trafilatura(),
        "webcorpus, 1 thread": lambda: WebcorpusExtractor(threads=1),
        "webcorpus, 2 threads": lambda: WebcorpusExtractor(threads=2),
    }
    rates = {(s, e): [] for s in sets for e in steps}
    info = {}
    for r in range(a.runs):
        for s, folder in sets.items():
            for e, make in steps.items():
                docs, wall, kept, timeouts = run_once(folder, make, work)
                rates[(s, e)].append(docs / wall)
                info[(s, e)] = (docs, kept, timeouts)
                print(f"round {r + 1}: {s:<15} {e:<22} {docs} pages in {wall:6.2f} s: {docs / wall:7.1f} pages/s "
                      f"({kept} kept, {timeouts} timeouts)", file=sys.stderr)
    med = {k: statistics.median(v) for k, v in rates.items()}
    print(f"{'set':<15} | {'extractor':<22} | pages/s (median of {a.runs}) | vs Trafilatura() | kept | timeouts")
    print("-" * 15 + "-|-" + "-" * 22 + "-|-" + "-" * 24 + "-|-" + "-" * 16 + "-|------|---------")
    for s in sets:
        base = med[(s, "Trafilatura()")]
        for e in steps:
            docs, kept, timeouts = info[(s, e)]
            print(f"{s:<15} | {e:<22} | {med[(s, e)]:24.1f} | {med[(s, e)] / base:15.2f}x | {kept:4} | {timeouts:8}")
        two = med[(s, "webcorpus, 2 threads")] / med[(s, "webcorpus, 1 thread")]
        print(f"{s:<15} | two threads / one thread: {two:.2f}x (target >= 1.8); webcorpus / Trafilatura(): "
              f"{med[(s, 'webcorpus, 1 thread')] / base:.2f}x (target >= 3)")
    print(json.dumps({"bench": "python-datatrove", "runs": a.runs,
                      "pages_per_s": {f"{s} | {e}": round(v, 2) for (s, e), v in med.items()}}))


if __name__ == "__main__":
    main()
