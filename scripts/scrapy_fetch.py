#!/usr/bin/env python3
"""Scrapy fetch-only reference for scripts/bench-crawl.sh --vs-scrapy.

    python3 scripts/scrapy_fetch.py --log ACCESS_LOG --proxy 127.0.0.1:PORT [--per-host N]

Fetches, with Scrapy (16 requests in flight, N per host: 1 by default, the crawl's own
politeness; no delay, no robots.txt, no redirects followed: the crawl's redirect hops are in
the list), every request
of a crawl's nginx access log (bench_crawl.py's log format: `$msec $request_time $host $status
... $request_uri`), in the order they were answered, through nginx as an HTTP proxy (so each
host keeps its own Scrapy slot, as the crawl's politeness keeps one per host). Nothing is
parsed or written: the time of the requests alone. Prints one JSON line: requests, answered,
wall_s (from the engine's start to its stop). Scrapy is installed from PyPI when missing.
"""

import argparse
import json
import subprocess
import sys
import time


def urls_of(log):
    rows = []
    for line in open(log, errors="replace"):
        p = line.split()
        if len(p) >= 7 and p[2] != "-":
            rows.append((float(p[0]), f"http://{p[2]}{p[-1]}"))
    rows.sort()
    return [u for _, u in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--log", required=True)
    ap.add_argument("--proxy", required=True, help="HOST:PORT of the nginx serving the sites")
    ap.add_argument("--per-host", type=int, default=1, help="requests in flight per host (Scrapy's default: 8)")
    a = ap.parse_args()
    try:
        import scrapy  # noqa: F401
    except ImportError:
        print("scrapy not found: installing it (pip install scrapy)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "scrapy"], check=True)
    import scrapy
    from scrapy.crawler import CrawlerProcess

    urls = urls_of(a.log)
    answered = []
    times = {}

    class FetchOnly(scrapy.Spider):
        name = "fetch_only"
        custom_settings = {
            "ROBOTSTXT_OBEY": False,
            "REDIRECT_ENABLED": False,
            "RETRY_ENABLED": False,
            "COOKIES_ENABLED": False,
            "HTTPERROR_ALLOW_ALL": True,
            "DOWNLOAD_DELAY": 0,
            "CONCURRENT_REQUESTS_PER_DOMAIN": a.per_host,
            "AUTOTHROTTLE_ENABLED": False,
            "LOG_LEVEL": "ERROR",
            "TELNETCONSOLE_ENABLED": False,
        }

        async def start(self):
            times["start"] = time.time()
            for u in urls:
                yield scrapy.Request(u, meta={"proxy": f"http://{a.proxy}"}, dont_filter=True)

        def parse(self, response):
            answered.append(response.status)

        def closed(self, _reason):
            times["end"] = time.time()

    process = CrawlerProcess()
    process.crawl(FetchOnly)
    process.start()
    print(json.dumps({"requests": len(urls), "answered": len(answered), "per_host": a.per_host,
                      "wall_s": round(times["end"] - times["start"], 3)}))


if __name__ == "__main__":
    main()
