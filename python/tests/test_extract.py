"""webcorpus.extract and webcorpus.SiteModel against the `webcorpus` command on the shared
pages: the same records, from str or bytes, from threads, and ValueError for bad input."""

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import webcorpus

from conftest import cli_lines, page_bytes

# Fields the command sets from the file rather than the page.
FILE_FIELDS = ("id", "model")


def same(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in FILE_FIELDS}


def modern_pages(shared: Path, n: int) -> list:
    pages = sorted((shared / "data" / "modern2026-dev" / "html").glob("*.html.gz"))[:n]
    assert len(pages) == n, "modern2026-dev has its pages"
    return pages


def test_records_equal_webcorpus_extract(shared, binary):
    pages = modern_pages(shared, 25)
    expected = cli_lines(binary, "extract", *map(str, pages))
    assert len(expected) == len(pages)
    for path, cli in zip(pages, expected):
        assert "error" not in cli, cli
        record = webcorpus.extract(page_bytes(path))
        assert same(record) == same(cli), path.name
    assert sum(bool(r["text"]) for r in expected) >= 20, "the pages have main text"


def test_str_and_bytes_give_the_same_record(shared):
    html = page_bytes(modern_pages(shared, 1)[0])
    assert webcorpus.extract(html) == webcorpus.extract(html.decode("utf-8"))


def test_bytes_are_decoded_by_their_declared_charset():
    body = "<p>Le café de la gare est ouvert tous les jours de la semaine, même le dimanche matin, " \
           "et les voyageurs y prennent leur petit déjeuner avant le premier train pour la ville.</p>"
    html = f'<html><head><meta charset="windows-1252"></head><body>{body}</body></html>'.encode("cp1252")
    record = webcorpus.extract(html, url="http://example.org/gare")
    assert "café" in record["text"] and "déjeuner" in record["text"]
    assert record["host"] == "example.org" and record["url"] == "http://example.org/gare"


def test_every_extractor_runs_and_the_trace_names_each_block(shared):
    html = page_bytes(modern_pages(shared, 1)[0])
    for name in webcorpus.EXTRACTORS:
        assert webcorpus.extract(html, extractor=name)["extractor"] == name
    record = webcorpus.extract(html, trace=True)
    blocks = record["trace"]["blocks"]
    assert blocks and all("stage" in b and "kept" in b for b in blocks)
    assert sum(b["kept"] for b in blocks) >= 1


def test_threads_give_the_same_records_as_one_thread(shared):
    pages = [page_bytes(p) for p in modern_pages(shared, 24)]
    one = [webcorpus.extract(h) for h in pages]
    with ThreadPoolExecutor(4) as pool:
        many = list(pool.map(webcorpus.extract, pages))
    assert many == one


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="str or bytes"):
        webcorpus.extract(42)
    with pytest.raises(ValueError, match="nope"):
        webcorpus.extract("<p>x</p>", extractor="nope")
    # Broken and binary input is a page like any other: a record, never a crash.
    assert webcorpus.extract(b"\x00\xff\xfe<<<</p>>" * 1000)["text"] == ""
    assert webcorpus.extract("<div>" * 100_000)["text"] == ""
    with pytest.raises(ValueError, match="no pages"):
        webcorpus.SiteModel.learn([])
    with pytest.raises(ValueError):
        webcorpus.Onion(n=0)


def freepress_pages(shared: Path, n: int) -> list:
    root = shared / "sites" / "www.freepressokc.com"
    pages = sorted(p / "index.html" for p in root.iterdir() if (p / "index.html").is_file())
    pages = [p for p in pages if p.stat().st_size > 20_000][:n]
    assert len(pages) == n
    return pages


def test_a_site_model_extracts_as_extract_site_does(shared, binary, tmp_path):
    pages = freepress_pages(shared, 30)
    model = webcorpus.SiteModel.learn([(str(p), p.read_bytes()) for p in pages], host="www.freepressokc.com")
    assert model.learned and model.sample_pages == 30
    assert "GoldMiner" in model.summary() or "static" in model.summary()
    expected = cli_lines(binary, "extract", "--site", "www.freepressokc.com", *map(str, pages))
    records = [model.extract(p.read_bytes()) for p in pages]
    assert [same(r) for r in records] == [same(c) for c in expected]
    assert any(r["model"] == "applied" for r in records)
    # Saved and loaded: the same records.
    model.save(tmp_path / "model.json")
    again = webcorpus.SiteModel.load(tmp_path / "model.json")
    assert again.host == "www.freepressokc.com" and again.learned
    assert [again.extract(p.read_bytes()) for p in pages[:5]] == records[:5]
    (tmp_path / "bad.json").write_text("not json")
    with pytest.raises(ValueError, match="not a saved site model"):
        webcorpus.SiteModel.load(tmp_path / "bad.json")


def test_too_few_pages_learn_no_model(shared):
    pages = freepress_pages(shared, 3)
    model = webcorpus.SiteModel.learn([(f"http://www.freepressokc.com/{i}", p.read_bytes()) for i, p in enumerate(pages)])
    assert not model.learned and model.host == "www.freepressokc.com"
    assert model.extract(pages[0].read_bytes())["text"] == webcorpus.extract(pages[0].read_bytes())["text"]
