"""Run one external main-text extractor (trafilatura & co.) over the shared evaluation sets.

Called by scripts/reference-tools.sh, inside its venv, once per tool:

    python scripts/reference_tools.py TOOL DATA_DIR OUT_DIR [SET ...]

For every page <id> of every set (DATA_DIR/<set>/gold.jsonl, HTML in html/<id>.html.gz) it
writes OUT_DIR/<set>/<id>.txt: the tool's plain text, paragraphs separated by newlines (an empty
file when the tool returned nothing; no file when it raised or ran over PAGE_TIMEOUT_S), then
OUT_DIR/<set>/timing.json = {"seconds": summed extraction time, "pages": n, "page_seconds":
{id: s}}, and OUT_DIR/meta.json = {"tool", "version", "settings"}. `webcorpus eval --reference
TOOL=OUT_DIR` scores these files like a built-in extractor.

Input handling: the gzip'd bytes are decompressed and a CleanEval `<text id=...>` wrapper line
is dropped (as src/extract/files.rs does); neither is timed. The tools that take bytes get the
bytes and detect the encoding themselves (trafilatura, jusText, readability-lxml, resiliparse
via its own detect_encoding); boilerpy3 takes str, decoded by `decode()` below (untimed).
Only the tool's call (and, for readability, turning its HTML summary into text) is timed, on
this one process and thread.
"""

import gzip
import json
import os
import re
import signal
import sys
import time

PAGE_TIMEOUT_S = 60

# ISO 639-1 codes of <html lang> -> jusText stoplist names (the languages of the sets and the
# common others); anything else, or no lang attribute, falls back to English.
JUSTEXT_LANGS = {
    "en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
    "pt": "Portuguese", "nl": "Dutch", "pl": "Polish", "cs": "Czech", "sk": "Slovak",
    "ru": "Russian", "uk": "Ukrainian", "sv": "Swedish", "da": "Danish", "no": "Norwegian_Bokmal",
    "nb": "Norwegian_Bokmal", "nn": "Norwegian_Nynorsk", "fi": "Finnish", "hu": "Hungarian",
    "ro": "Romanian", "bg": "Bulgarian", "el": "Greek", "tr": "Turkish", "hr": "Croatian",
    "sr": "Serbian", "sl": "Slovenian", "et": "Estonian", "lv": "Latvian", "lt": "Lithuanian",
    "ca": "Catalan", "eu": "Basque", "gl": "Galician", "id": "Indonesian", "ms": "Malay",
    "vi": "Vietnamese", "ko": "Korean", "ar": "Arabic", "fa": "Persian", "he": "Hebrew",
    "hi": "Hindi", "bn": "Bengali", "ur": "Urdu", "ta": "Tamil", "te": "Telugu", "af": "Afrikaans",
    "sq": "Albanian", "is": "Icelandic", "ga": "Irish", "cy": "Welsh", "la": "Latin",
}
LANG_RE = re.compile(rb"<html[^>]*?\slang\s*=\s*[\"']?([A-Za-z]{2,3})", re.I)
CHARSET_RE = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.I)
BLOCK_TAGS = {
    "p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th", "pre",
    "blockquote", "section", "article", "header", "footer", "ul", "ol", "dl", "dt", "dd",
    "table", "figure", "figcaption", "aside", "main", "nav", "form", "hr",
}


class Timeout(Exception):
    pass


def strip_wrapper(raw):
    """Drop a leading CleanEval `<text id=...>` line (not part of the page)."""
    body = raw.lstrip()
    if body.startswith(b"<text id="):
        nl = body.find(b"\n")
        return b"" if nl < 0 else body[nl + 1:]
    return raw


def decode(raw):
    """bytes -> str for the tools that take str: valid UTF-8, else the declared <meta>
    charset, else windows-1252 (never fails)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    m = CHARSET_RE.search(raw[:4096])
    if m:
        try:
            return raw.decode(m.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    return raw.decode("cp1252", errors="replace")


def guess_language(raw, stoplists):
    """The stoplist language with the largest share of the page's words (text outside tags,
    scripts and styles dropped), for pages without a known <html lang>; English when no
    stoplist covers 10 % of the words. Untimed preparation of jusText's input."""
    text = re.sub(r"(?is)<(script|style)\b.*?</\1\s*>|<[^>]*>", " ", decode(raw))
    tokens = re.findall(r"\w+", text.lower())
    if not tokens:
        return "English"
    share = {lang: sum(t in words for t in tokens) / len(tokens) for lang, words in stoplists.items()}
    best = max(share, key=share.get)
    return best if share[best] >= 0.1 else "English"


def html_to_text(fragment):
    """readability's HTML summary -> text, one line per block element."""
    import lxml.html

    if not fragment or not fragment.strip():
        return ""
    root = lxml.html.fromstring(fragment)
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag.lower() in BLOCK_TAGS:
            el.tail = "\n" + (el.tail or "")
            el.text = "\n" + (el.text or "")
    lines = (" ".join(line.split()) for line in root.text_content().split("\n"))
    return "\n".join(line for line in lines if line)


def make_tool(name):
    """(prepare, extract, version, settings) for the tool `name`: `prepare(raw_bytes)` makes
    the tool's input (untimed), `extract(input)` returns its text or None (timed)."""
    from importlib.metadata import version

    if name == "trafilatura":
        import trafilatura

        return (lambda raw: raw, trafilatura.extract,
                version("trafilatura"),
                "trafilatura.extract(html_bytes) with defaults (favor_precision/favor_recall off, "
                "include_comments and include_tables on)")
    if name == "justext":
        import justext

        stoplists = {lang: justext.get_stoplist(lang) for lang in justext.get_stoplists()}

        def prepare(raw):
            m = LANG_RE.search(raw[:8192])
            lang = JUSTEXT_LANGS.get(m.group(1).decode("ascii").lower()[:2]) if m else None
            return raw, stoplists[lang or guess_language(raw, stoplists)]

        def run(args):
            raw, stoplist = args
            return "\n".join(p.text for p in justext.justext(raw, stoplist) if not p.is_boilerplate)

        return (prepare, run, version("justext"),
                "justext.justext(html_bytes, stoplist) default thresholds, non-boilerplate paragraphs; "
                "stoplist of the <html lang> language, else of the stoplist language with the largest "
                "share of the page's words (English when none reaches 10 %)")
    if name == "readability":
        from readability import Document

        return (lambda raw: raw, lambda raw: html_to_text(Document(raw).summary()),
                version("readability-lxml"),
                "readability.Document(html_bytes).summary() -> text, one line per block element")
    if name == "boilerpy3":
        from boilerpy3 import extractors

        extractor = extractors.ArticleExtractor(raise_on_failure=False)
        return (decode, extractor.get_content, version("boilerpy3"),
                "boilerpy3 ArticleExtractor(raise_on_failure=False).get_content(html_str) (the default raises on 15 of 71 CleanPortalEval pages; False keeps what it parsed); str decoded: UTF-8, else <meta> "
                "charset, else windows-1252")
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.encoding import detect_encoding
        from resiliparse.parse.html import HTMLTree

        return (lambda raw: raw,
                lambda raw: extract_plain_text(HTMLTree.parse_from_bytes(raw, detect_encoding(raw)),
                                               main_content=True),
                version("resiliparse"),
                "extract_plain_text(HTMLTree.parse_from_bytes(b, detect_encoding(b)), main_content=True)")
    raise SystemExit(f"unknown tool {name}; known: trafilatura justext readability boilerpy3 resiliparse")


def on_alarm(signum, frame):
    raise Timeout()


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    tool, data, out = sys.argv[1:4]
    sets = sys.argv[4:] or sorted(d for d in os.listdir(data) if os.path.isfile(os.path.join(data, d, "gold.jsonl")))
    prepare, extract, ver, settings = make_tool(tool)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump({"tool": tool, "version": ver, "settings": settings}, f)
    signal.signal(signal.SIGALRM, on_alarm)
    for name in sets:
        set_dir = os.path.join(data, name)
        dest = os.path.join(out, name)
        os.makedirs(dest, exist_ok=True)
        with open(os.path.join(set_dir, "gold.jsonl"), encoding="utf-8") as f:
            ids = [json.loads(line)["id"] for line in f if line.strip()]
        page_seconds, failed = {}, 0
        for pid in ids:
            target = os.path.join(dest, pid + ".txt")
            if os.path.exists(target):
                os.remove(target)
            try:
                with gzip.open(os.path.join(set_dir, "html", pid + ".html.gz")) as f:
                    raw = strip_wrapper(f.read())
                args = prepare(raw)
                signal.alarm(PAGE_TIMEOUT_S)
                start = time.thread_time()
                try:
                    text = extract(args)
                finally:
                    page_seconds[pid] = time.thread_time() - start
                    signal.alarm(0)
            except Exception as e:  # one bad page never stops the run; no file = a discard
                failed += 1
                print(f"{tool} {name}/{pid}: {type(e).__name__}: {e}"[:300], file=sys.stderr)
                continue
            with open(target, "w", encoding="utf-8") as f:
                f.write(text or "")
        total = sum(page_seconds.values())
        with open(os.path.join(dest, "timing.json"), "w") as f:
            json.dump({"seconds": total, "pages": len(page_seconds), "page_seconds": page_seconds}, f)
        print(f"{tool} {ver} {name}: {len(ids) - failed}/{len(ids)} pages in {total:.1f} s "
              f"({len(page_seconds) / total if total else 0:.1f} pages/s), {failed} failed", file=sys.stderr)


if __name__ == "__main__":
    main()
