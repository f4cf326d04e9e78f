"""webcorpus.datatrove in a datatrove pipeline (WarcReader -> extractor -> JsonlWriter) over
the shared WARC files, against `webcorpus extract` on the same files."""

import gzip
import json
from pathlib import Path

import pytest
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.writers import JsonlWriter

from conftest import cli_lines
from webcorpus.datatrove import WebcorpusExtractor, WebcorpusSiteExtractor


def run_pipeline(warcs: Path, step, out: Path) -> dict:
    LocalPipelineExecutor(
        pipeline=[WarcReader(str(warcs), glob_pattern="*.warc.gz"), step, JsonlWriter(str(out))],
        tasks=1,
        workers=1,
        logging_dir=str(out.parent / f"{out.name}-logs"),
    ).run()
    docs = {}
    for file in sorted(out.glob("*.jsonl.gz")):
        with gzip.open(file, "rt") as f:
            for line in f:
                d = json.loads(line)
                docs[d["id"]] = d
    return docs


def test_the_pipeline_gives_the_documents_webcorpus_extract_gives(shared, binary, tmp_path):
    warcs = shared / "sites" / "warc"
    files = sorted(warcs.glob("*.warc.gz"))
    assert files, "the shared WARC files"
    expected = {}
    for f in files:
        for r in cli_lines(binary, "extract", str(f)):
            expected[r["id"]] = r
    docs = run_pipeline(warcs, WebcorpusExtractor(), tmp_path / "out")
    assert len(docs) >= 40, f"{len(docs)} documents"
    for doc_id, doc in docs.items():
        cli = expected[doc_id]
        assert doc["text"] == cli["text"], doc["metadata"].get("url")
        assert doc["metadata"]["lang"] == cli["lang"] and doc["metadata"]["word_count"] == cli["word_count"]
    # The documents the extractor dropped are those webcorpus leaves empty.
    kept_by_cli = {i for i, r in expected.items() if r.get("text")}
    assert set(docs) <= kept_by_cli
    threaded = run_pipeline(warcs, WebcorpusExtractor(threads=2), tmp_path / "out2")
    assert {i: d["text"] for i, d in threaded.items()} == {i: d["text"] for i, d in docs.items()}


def write_warc(path: Path, pages: list) -> None:
    """A WARC of (url, html bytes) responses (warcio)."""
    from io import BytesIO

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as f:
        writer = WARCWriter(f, gzip=True)
        for url, body in pages:
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            record = writer.create_warc_record(url, "response", payload=BytesIO(body), http_headers=headers)
            record.rec_headers.add_header("WARC-Identified-Payload-Type", "text/html")
            writer.write_record(record)


def test_the_per_site_extractor_learns_each_host_from_its_first_pages(shared, tmp_path):
    import webcorpus

    root = shared / "sites" / "www.freepressokc.com"
    dirs = sorted(p for p in root.iterdir() if (p / "index.html").is_file() and (p / "index.html").stat().st_size > 20_000)
    pages = [(f"http://www.freepressokc.com/{d.name}/", (d / "index.html").read_bytes()) for d in dirs[:40]]
    # Two pages of another host: too few to learn from.
    other = [(f"http://small.example/{i}", pages[i][1]) for i in range(2)]
    (tmp_path / "warcs").mkdir()
    write_warc(tmp_path / "warcs" / "sites.warc.gz", pages[:20] + other + pages[20:])
    docs = run_pipeline(tmp_path / "warcs", WebcorpusSiteExtractor(sample_size=30), tmp_path / "out")
    stats = json.loads(next((tmp_path / "out-logs" / "stats").glob("*.json")).read_text())
    extractor_stats = next(s["stats"] for s in stats if "per site" in s["name"])
    assert extractor_stats["sites_learned"] == 1 and extractor_stats["sites_without_model"] == 1
    model = webcorpus.SiteModel.learn(pages[:30])
    assert model.learned
    by_url = {d["metadata"]["url"]: d for d in docs.values()}
    for url, html in pages:
        record = model.extract(html, url=url)
        if record["text"]:
            assert by_url[url]["text"] == record["text"], url
            assert by_url[url]["metadata"]["model"] == record["model"]
    assert any(d["metadata"].get("model") == "applied" for d in docs.values())


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="extractor"):
        WebcorpusExtractor(extractor="nope")
    with pytest.raises(ValueError, match="threads"):
        WebcorpusExtractor(threads=0)
