"""webcorpus from Python: the crawl's main-content extraction, per-site learning and Onion
paragraph dedup, from the same Rust library as the `webcorpus` command (no second
implementation).

    import webcorpus
    record = webcorpus.extract(html_bytes, url="https://example.org/a")
    record["text"], record["headline"], record["lang"]

- :func:`extract`: one page's corpus record, the fields of ``corpus.jsonl``.
- :class:`SiteModel`: a site's template learned from its pages, as the crawl learns a host's.
- :class:`Onion`: paragraph dedup against everything kept so far.
- :func:`read_corpus`: the records of a corpus file or directory of shards.
- :mod:`webcorpus.datatrove`: extractor steps for datatrove pipelines.

Bad input raises :class:`ValueError` with the reason. The GIL is released while a page is
extracted, so threads extract in parallel.
"""

from __future__ import annotations

import gzip
import json
import os
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from ._webcorpus import VERSION as __version__
from ._webcorpus import Onion as _Onion
from ._webcorpus import SiteModel as _SiteModel
from ._webcorpus import extract_json as _extract_json

__all__ = ["extract", "SiteModel", "Onion", "read_corpus", "EXTRACTORS", "__version__"]

Html = Union[str, bytes, bytearray]

#: The extractors ``extract`` takes (``default`` is the crawl's).
EXTRACTORS = ("default", "rules", "justext", "goldminer", "stadynot", "bte", "boilerpipe",
              "boilerpipe-tree", "boilernet")


def extract(html: Html, url: Optional[str] = None, extractor: str = "default", comments: bool = False,
            language: Optional[str] = None, trace: bool = False) -> Dict[str, Any]:
    """The corpus record of one page, as ``webcorpus extract`` writes it.

    ``html``: ``str``, or ``bytes`` decoded as the crawl decodes a response (byte order mark,
    ``<meta charset>``, then detection). ``url`` feeds the record's ``url``/``host`` and the page
    classifier. ``extractor``: one of :data:`EXTRACTORS`. ``comments``: the comment section in
    the record's ``comments`` field (never in ``text``). ``language``: a stoplist name
    (``"English"``) or ``None``/``"auto"`` to detect. ``trace``: add ``trace``, the stage that kept
    or dropped each text block.

    Returns a dict with the fields of ``corpus.jsonl`` (``text``: main content only, paragraphs
    separated by a blank line; ``headline``; ``paragraphs``; ``lang``; ``word_count``; …).
    Nothing is deduplicated. Raises ``ValueError`` for a wrong type, an unknown extractor, or a
    page the extractor cannot read.
    """
    return json.loads(_extract_json(html, url, extractor, comments, language, trace))


class SiteModel:
    """A site's learned template (GoldMiner begin/end patterns around the article, StaDyNoT
    static noise), learned as the crawl learns a host: from its first ``[learn] sample_size``
    (100) pages, and only from ``[learn] min_sample`` (5) pages or more.
    """

    def __init__(self, inner: _SiteModel):
        self._inner = inner

    @classmethod
    def learn(cls, pages: Iterable[Tuple[str, Html]], host: Optional[str] = None,
              language: Optional[str] = None) -> "SiteModel":
        """Learn from ``pages``, ``(url, html)`` pairs of one site in crawl order (the first
        ``sample_size`` are read). ``host``: the site's name (default: the first URL's host).
        Raises ``ValueError`` without pages or with an HTML that is neither str nor bytes."""
        return cls(_SiteModel.learn(list(pages), host, language))

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "SiteModel":
        """A model written by :meth:`save`. Raises ``ValueError`` when the file is not one."""
        return cls(_SiteModel.load(os.fspath(path)))

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the model to ``path`` (JSON)."""
        self._inner.save(os.fspath(path))

    def extract(self, html: Html, url: Optional[str] = None, extractor: str = "default",
                comments: bool = False, trace: bool = False) -> Dict[str, Any]:
        """:func:`extract` with this model: the record has ``model``, how it took part
        (``applied``; ``unmatched``: none of its templates on the page; ``rejected``: the
        per-page guard set it aside), absent when no model was learned."""
        return json.loads(self._inner.extract_json(html, url, extractor, comments, trace))

    @property
    def host(self) -> str:
        """The site's host key."""
        return self._inner.host

    @property
    def learned(self) -> bool:
        """True when a model was learned (false below ``min_sample`` pages: pages are then
        extracted alone)."""
        return self._inner.learned

    @property
    def sample_pages(self) -> int:
        """Pages the model was learned from."""
        return self._inner.sample_pages

    def summary(self) -> str:
        """The learned patterns and static noise keys, as ``webcorpus stats --host`` prints them."""
        return self._inner.summary()

    def __repr__(self) -> str:
        return f"SiteModel(host={self.host!r}, learned={self.learned}, sample_pages={self.sample_pages})"


Document = Union[str, Dict[str, Any]]


class Onion:
    """Onion paragraph dedup (Pomikálek 2011) against everything kept so far, with the crawl's
    settings: word 7-grams hashed with xxh3, a paragraph dropped when more than half of them
    were seen. The seen n-grams stay in memory (an exact set: 8 bytes each plus overhead).
    """

    def __init__(self, n: Optional[int] = None, threshold: Optional[float] = None):
        """``n``: words per n-gram (7); ``threshold``: the share of seen n-grams above which a
        paragraph is dropped (0.5). Raises ``ValueError`` for n = 0 or a threshold outside 0–1."""
        self._inner = _Onion(n, threshold)

    def keep(self, paragraphs: Sequence[str]) -> List[bool]:
        """One document's paragraphs: kept (True) or dropped, in order; the kept ones are
        remembered."""
        return self._inner.keep(list(paragraphs))

    def dedup(self, documents: Iterable[Document]) -> Iterator[Document]:
        """Each document with its duplicate paragraphs removed, documents left with none
        skipped. A ``str`` is split into paragraphs at blank lines; a record (dict) keeps its
        other fields, with ``text`` (paragraphs at blank lines) and ``paragraph_kinds`` cut to
        the kept paragraphs."""
        for doc in documents:
            if isinstance(doc, str):
                paragraphs = [p for p in doc.split("\n\n") if p.strip()]
                kept = [p for p, k in zip(paragraphs, self.keep(paragraphs)) if k]
                if kept:
                    yield "\n\n".join(kept)
                continue
            if not isinstance(doc, dict):
                raise ValueError(f"a document is a str or a record dict, not {type(doc).__name__}")
            record = dict(doc)
            if record.get("paragraphs"):  # older corpora: paragraphs as objects
                texts = [p["text"] for p in record.pop("paragraphs")]
            else:
                texts = str(record.get("text", "")).split("\n\n") if record.get("text") else []
            kinds = list(record.get("paragraph_kinds") or [])
            kinds = kinds if len(kinds) == len(texts) else ["paragraph"] * len(texts)
            mask = self.keep(texts)
            if not any(mask):
                continue
            record["text"] = "\n\n".join(t for t, k in zip(texts, mask) if k)
            record["paragraph_kinds"] = [kind for kind, k in zip(kinds, mask) if k]
            yield record

    def __len__(self) -> int:
        """Distinct n-grams remembered."""
        return len(self._inner)


def _lines(path: str) -> Iterator[str]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        yield from f


def read_corpus(path: Union[str, "os.PathLike[str]"]) -> Iterator[Dict[str, Any]]:
    """The records of a corpus: a JSONL file (``corpus.jsonl``, plain or ``.gz``), or a
    directory of them (shards read in name order). Raises ``ValueError`` naming the file and
    line of a line that is not a JSON record, ``FileNotFoundError`` for a missing path."""
    path = os.fspath(path)
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path)
                       if f.endswith((".jsonl", ".jsonl.gz", ".json.gz")))
    elif os.path.exists(path):
        files = [path]
    else:
        raise FileNotFoundError(path)
    for file in files:
        for number, line in enumerate(_lines(file), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{file}:{number}: not a JSON record ({e.msg})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{file}:{number}: not a JSON record (a {type(record).__name__})")
            yield record
