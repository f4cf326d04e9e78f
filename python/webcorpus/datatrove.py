"""webcorpus as datatrove pipeline steps: :class:`WebcorpusExtractor`, a drop-in for
datatrove's ``Trafilatura()`` step, and :class:`WebcorpusSiteExtractor`, which learns each
host's model from its first pages in the stream, as the crawl does.

    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter
    from webcorpus.datatrove import WebcorpusExtractor

    pipeline = [WarcReader("warcs/"), WebcorpusExtractor(), JsonlWriter("out/")]

Both subclass datatrove's ``BaseExtractor`` and keep its contract: ``Document.text`` (the HTML)
is replaced by the main text, documents left empty are dropped, the stats are datatrove's
(``total``, ``extracted``, ``forwarded``, ``dropped``, ``clean_error``), and
``extract(html) -> str`` is the one-page entry point. They add the record's fields to
``Document.metadata`` (:data:`METADATA`). Unlike trafilatura, webcorpus bounds its own work
(document size and DOM depth caps), so documents are extracted in the step's process, not in
a sandbox process per document; ``threads`` > 1 extracts in parallel threads (the GIL is
released during extraction), in order.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Deque, Dict, Iterable, Iterator, List, Optional, Tuple
from urllib.parse import urlsplit

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.extractors.base import BaseExtractor
from datatrove.utils.typeshelper import StatHints

import webcorpus

#: The record fields added to ``Document.metadata`` (when the record has them).
METADATA = ("title", "headline", "lang", "lang_score", "word_count", "page_type", "page_type_prob", "date",
            "author", "comments", "extractor", "model")

Outcome = Tuple[Document, Optional[Dict[str, Any]]]


class WebcorpusExtractor(BaseExtractor):
    """The main text of each document's HTML with webcorpus's ``extractor`` (``default``: the
    crawl's), ``Document.metadata["url"]`` as the page URL.

    Args:
        extractor: one of :data:`webcorpus.EXTRACTORS`.
        comments: put the comment section in ``metadata["comments"]`` (never in the text).
        language: a stoplist name, or ``None`` to detect it per page.
        threads: documents extracted at once (threads; 1: one at a time).
        timeout: kept for ``BaseExtractor``'s signature; webcorpus bounds its own work.
    """

    name = "🕸 webcorpus"

    def __init__(self, extractor: str = "default", comments: bool = False, language: Optional[str] = None,
                 threads: int = 1, timeout: float = 1):
        super().__init__(timeout)
        if extractor not in webcorpus.EXTRACTORS:
            raise ValueError(f"extractor {extractor!r}: one of {', '.join(webcorpus.EXTRACTORS)}")
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        self.extractor, self.comments, self.language, self.threads = extractor, comments, language, threads

    def extract(self, text: str) -> str:
        """The main text of one page's HTML."""
        return webcorpus.extract(text, extractor=self.extractor, comments=self.comments, language=self.language)["text"]

    def record(self, doc: Document) -> Optional[Dict[str, Any]]:
        """The webcorpus record of ``doc``, or ``None`` when its HTML cannot be read."""
        try:
            return webcorpus.extract(doc.text, url=doc.metadata.get("url"), extractor=self.extractor,
                                     comments=self.comments, language=self.language)
        except ValueError:
            return None

    def records(self, docs: Iterable[Document]) -> Iterator[Outcome]:
        """Each document with its record (``None``: unreadable), in order."""
        if self.threads == 1:
            for doc in docs:
                yield doc, self.record(doc)
            return
        # A sliding window: the reader and the writer (this thread) go on while up to
        # 4 x threads documents are extracted.
        with ThreadPoolExecutor(self.threads) as pool:
            window: Deque[Tuple[Document, "Future[Optional[Dict[str, Any]]]"]] = deque()
            for doc in docs:
                window.append((doc, pool.submit(self.record, doc)))
                if len(window) >= 4 * self.threads:
                    done, future = window.popleft()
                    yield done, future.result()
            while window:
                done, future = window.popleft()
                yield done, future.result()

    def finish(self, outcomes: Iterable[Outcome]) -> DocumentsPipeline:
        """``Document.text`` replaced and the metadata added; empty and unreadable documents
        dropped and counted."""
        for doc, record in outcomes:
            self.stat_update(StatHints.total)
            if record is None:
                self.stat_update("clean_error")
                continue
            self.stat_update("extracted")
            doc.text = record["text"]
            doc.metadata.update({k: record[k] for k in METADATA if record.get(k) is not None})
            if doc.text:
                self.stat_update(StatHints.forwarded)
                self.update_doc_stats(doc)
                yield doc
            else:
                self.stat_update(StatHints.dropped)

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        yield from self.finish(self.records(data))


def host_of(doc: Document) -> str:
    """The host of a document's URL (``""`` without one)."""
    return urlsplit(doc.metadata.get("url") or "").netloc.lower()


class WebcorpusSiteExtractor(WebcorpusExtractor):
    """:class:`WebcorpusExtractor` with per-site learning, as the crawl learns a host: each
    host's first ``sample_size`` (100) documents in the stream are held back, its model is
    learned from them (from ``min_sample``, 5, documents or more; fewer: extracted alone), and
    they and every later document of the host are extracted with it.

    Held-back documents come out once their host's sample is full or the stream ends: the
    order of documents changes, and memory holds at most ``sample_size`` documents per host
    still sampling (``max_sampling_hosts`` hosts: the one sampling longest is learned from
    what it has when a new host would pass the limit).
    """

    name = "🕸 webcorpus (per site)"

    def __init__(self, extractor: str = "default", comments: bool = False, language: Optional[str] = None,
                 threads: int = 1, sample_size: int = 100, max_sampling_hosts: int = 1000, timeout: float = 1):
        super().__init__(extractor, comments, language, threads, timeout)
        self.sample_size, self.max_sampling_hosts = sample_size, max_sampling_hosts
        self.models: Dict[str, webcorpus.SiteModel] = {}

    def record(self, doc: Document) -> Optional[Dict[str, Any]]:
        model = self.models.get(host_of(doc))
        if model is None:
            return super().record(doc)
        try:
            return model.extract(doc.text, url=doc.metadata.get("url"), extractor=self.extractor,
                                 comments=self.comments)
        except ValueError:
            return None

    def learn(self, host: str, held: List[Document]) -> List[Document]:
        """Learn ``host``'s model from its held-back documents; returns them."""
        pages = [(d.metadata.get("url") or f"http://{host}/{i}", d.text) for i, d in enumerate(held)]
        self.models[host] = webcorpus.SiteModel.learn(pages, host=host or "unknown", language=self.language)
        self.stat_update("sites_learned" if self.models[host].learned else "sites_without_model")
        return held

    def ordered(self, data: DocumentsPipeline) -> Iterator[Document]:
        """The documents once their host has a model: held back while it samples."""
        sampling: "OrderedDict[str, List[Document]]" = OrderedDict()
        for doc in data:
            host = host_of(doc)
            if host in self.models:
                yield doc
                continue
            held = sampling.setdefault(host, [])
            held.append(doc)
            if len(held) >= self.sample_size:
                yield from self.learn(host, sampling.pop(host))
            elif len(sampling) > self.max_sampling_hosts:
                oldest, docs = sampling.popitem(last=False)
                yield from self.learn(oldest, docs)
        for host, held in sampling.items():
            yield from self.learn(host, held)

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        yield from self.finish(self.records(self.ordered(data)))
