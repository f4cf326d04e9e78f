"""webcorpus.Onion against `webcorpus dedup`, and webcorpus.read_corpus."""

import gzip
import json

import pytest
import webcorpus

from conftest import REPO, cli_lines, page_bytes


def records(shared, n):
    pages = sorted((shared / "data" / "modern2026-dev" / "html").glob("*.html.gz"))[:n]
    return [webcorpus.extract(page_bytes(p), url=f"https://example.org/{p.name}") for p in pages]


def test_onion_keeps_what_webcorpus_dedup_keeps(shared, binary, tmp_path):
    docs = records(shared, 20)
    # Every document twice, and one made of two others' paragraphs plus a new one.
    mixed = dict(docs[3])
    mixed["url"] = "https://example.org/mixed"
    new = "A paragraph no other page has, about the tides of the northern sea and the old lighthouse."
    mixed["text"] = "\n\n".join(docs[1]["text"].split("\n\n")[:2] + [new])
    mixed["paragraph_kinds"] = docs[1]["paragraph_kinds"][:2] + ["paragraph"]
    stream = docs + [mixed] + docs
    corpus = tmp_path / "in.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in stream))
    subprocess_out = tmp_path / "out.jsonl"
    import subprocess

    subprocess.run([str(binary), "dedup", str(corpus), "--out", str(subprocess_out), "--quiet"], cwd=REPO, check=True)
    expected = [json.loads(l) for l in subprocess_out.read_text().splitlines() if l.strip()]
    kept = list(webcorpus.Onion().dedup(stream))
    assert [(r["url"], r["text"]) for r in kept] == [(r["url"], r["text"]) for r in expected]
    assert len(kept) < len(stream)
    assert [r["text"] for r in kept if r["url"] == "https://example.org/mixed"] == [new]


def test_onion_on_plain_texts():
    onion = webcorpus.Onion()
    a = "The ferry to the island leaves every morning at seven from the old harbour pier.\n\n" \
        "Tickets are sold on board and cost four euros for adults and two for children."
    b = "Tickets are sold on board and cost four euros for adults and two for children.\n\n" \
        "In winter the ferry does not run when the wind is stronger than force eight."
    assert list(onion.dedup([a, b, a])) == [a, b.split("\n\n")[1]]
    assert len(onion) > 0


def test_read_corpus_reads_files_and_shards(tmp_path):
    recs = [{"url": f"https://example.org/{i}", "text": f"text {i}"} for i in range(5)]
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs[:2]))
    with gzip.open(tmp_path / "shards" / "b.jsonl.gz", "wt") as f:
        f.write("".join(json.dumps(r) + "\n" for r in recs[2:]))
    assert list(webcorpus.read_corpus(tmp_path / "shards")) == recs
    assert list(webcorpus.read_corpus(tmp_path / "shards" / "a.jsonl")) == recs[:2]
    (tmp_path / "bad.jsonl").write_text('{"url": "x"}\nnot json\n')
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        list(webcorpus.read_corpus(tmp_path / "bad.jsonl"))
    with pytest.raises(FileNotFoundError):
        list(webcorpus.read_corpus(tmp_path / "missing.jsonl"))
