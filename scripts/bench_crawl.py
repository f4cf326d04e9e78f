#!/usr/bin/env python3
"""Helper of the crawl benchmarks (Python 3 standard library only).

Used by scripts/bench-crawl.sh, scripts/bench-frontier.sh and scripts/bench-dedup.sh; each
subcommand does one step:

  free-port                       print a free TCP port on 127.0.0.1
  sites  --out DIR --hosts N      synthetic sites DIR/sites/<host>/ (20 pages each, rewritten
                                  from the real pages of ../shared/sites), DIR/seeds.txt, DIR/hosts.txt
  nginx-conf ...                  nginx.conf serving a document root per Host header
  crawl-config ...                config.toml copy whose [net.resolve] maps the hosts to nginx
  report ...                      crawl measurements from the nginx access log and `time -v`
  frontier-server ...             HTTP server of one host linking N unique URLs (hub pages)
  frontier-files ...              the same host's robots.txt, seed and hub pages as files (nginx)
  rss ...                         peak RSS etc. from a `time -v` file (frontier benchmark)
  dedup-corpus ...                JSONL corpus with duplicates built from the gold texts
"""

import argparse
import http.server
import json
import os
import random
import re
import socket
import statistics
import sys
import threading
import time
from collections import Counter, defaultdict

REAL_SITES = ["www.freepressokc.com", "www.paraguayos.org", "hidemiyoshi.jp", "awesomewm.org",
              "www-cs.stanford.edu"]
PAGES_PER_HOST = 20
MISSING_PER_HOST = 2  # linked pages that do not exist (404s)


def page_name(k):
    return "index.html" if k == 0 else f"p{k:02d}.html"


# Link targets every synthetic page uses, in round-robin order: the host's 20 pages, then the
# missing ones. The rewritten page is therefore the same for every host (relative links), so each
# source page is rewritten once and hard-linked into every host that uses it.
TARGETS = [page_name(k) for k in range(PAGES_PER_HOST)] + \
          [f"gone-{k + 1}.html" for k in range(MISSING_PER_HOST)]

HREF_RE = re.compile(rb"""(<(?:a|area)\b[^>]*?\bhref\s*=\s*)("[^"]*"|'[^']*'|[^\s>"']+)""", re.I)
BASE_RE = re.compile(rb"<base\b[^>]*>", re.I)
KEEP_PREFIXES = (b"#", b"javascript:", b"mailto:", b"tel:", b"data:")


def rewrite_page(body):
    """Every <a>/<area> href -> one of TARGETS (round robin); <base> removed; a page with fewer
    links than targets gets the missing ones appended, so every page links every target."""
    counter = [0]

    def sub(m):
        value = m.group(2).strip(b"\"'").strip()
        if value.lower().startswith(KEEP_PREFIXES):
            return m.group(0)
        target = TARGETS[counter[0] % len(TARGETS)]
        counter[0] += 1
        return m.group(1) + b'"' + target.encode() + b'"'

    body = BASE_RE.sub(b"", body)
    body = HREF_RE.sub(sub, body)
    if counter[0] < len(TARGETS):
        extra = b"".join(b'<a href="%s">%s</a> ' % (t.encode(), t.encode()) for t in TARGETS[counter[0]:])
        nav = b"<p class=\"bench-nav\">" + extra + b"</p>"
        idx = body.lower().rfind(b"</body>")
        body = body[:idx] + nav + body[idx:] if idx >= 0 else body + nav
    return body


def real_pages(sites_dir):
    out = {}
    for site in REAL_SITES:
        root = os.path.join(sites_dir, site)
        pages = []
        for dirpath, _dirs, files in os.walk(root):
            for f in files:
                if f.endswith((".html", ".htm")):
                    pages.append(os.path.relpath(os.path.join(dirpath, f), root))
        pages.sort()
        if not pages:
            sys.exit(f"error: no HTML pages under {root}")
        out[site] = pages
    return out


def cmd_sites(a):
    t0 = time.time()
    pages = real_pages(a.shared_sites)
    pool = os.path.join(a.out, "pool")
    sites = os.path.join(a.out, "sites")
    os.makedirs(pool, exist_ok=True)
    os.makedirs(sites, exist_ok=True)
    robots = os.path.join(pool, "robots.txt")
    with open(robots, "w") as f:
        f.write("User-agent: *\nAllow: /\n")
    width = max(4, len(str(a.hosts)))
    pooled = {}  # (site, index) -> pool file
    hosts = []
    link_mode = "hardlink"
    for i in range(a.hosts):
        host = f"h{i + 1:0{width}d}.{a.domain}"
        hosts.append(host)
        site = REAL_SITES[i % len(REAL_SITES)]
        plist = pages[site]
        start = (i // len(REAL_SITES)) * PAGES_PER_HOST
        hdir = os.path.join(sites, host)
        os.makedirs(hdir, exist_ok=True)
        files = [("robots.txt", robots)]
        for k in range(PAGES_PER_HOST):
            j = (start + k) % len(plist)
            key = (site, j)
            if key not in pooled:
                src = os.path.join(a.shared_sites, site, plist[j])
                with open(src, "rb") as f:
                    body = rewrite_page(f.read())
                dst = os.path.join(pool, f"{len(pooled):05d}.html")
                with open(dst, "wb") as f:
                    f.write(body)
                pooled[key] = dst
            files.append((page_name(k), pooled[key]))
        for name, src in files:
            dst = os.path.join(hdir, name)
            if link_mode == "hardlink":
                try:
                    os.link(src, dst)
                    continue
                except OSError:
                    link_mode = "symlink"
            os.symlink(os.path.abspath(src), dst)
    with open(os.path.join(a.out, "seeds.txt"), "w") as f:
        f.write("# synthetic bench hosts (scripts/bench-crawl.sh)\n")
        for h in hosts:
            f.write(f"http://{h}/index.html\n")
    with open(os.path.join(a.out, "hosts.txt"), "w") as f:
        f.write("".join(h + "\n" for h in hosts))
    pool_bytes = sum(os.path.getsize(p) for p in pooled.values())
    print(f"built {a.hosts} hosts x {PAGES_PER_HOST} pages (+ robots.txt, {MISSING_PER_HOST} linked 404s each) "
          f"from {len(pooled)} rewritten real pages ({pool_bytes / 1e6:.1f} MB, {link_mode}s) "
          f"in {time.time() - t0:.1f} s", file=sys.stderr)


def cmd_free_port(_a):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])


NGINX_CONF = """\
# Generated by scripts/bench_crawl.py: a private nginx instance for a benchmark.
{user}worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
worker_rlimit_nofile 8192;
events {{ worker_connections 4096; }}
http {{
    types {{ text/html html htm; text/plain txt; application/xml xml; }}
    default_type text/html;     # like tests/it/support/site_server.rs: no extension = text/html
    log_format bench '$msec $request_time $host $status $body_bytes_sent "$sent_http_content_type" $request_uri';
    access_log {prefix}/access.log bench;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    sendfile on;
    keepalive_timeout 75s;
    keepalive_requests 100000;
    server_tokens off;
    log_not_found off;          # 404s are expected; they are in the access log
    absolute_redirect off;      # "Location: /dir/" like site_server.rs, not http://host:port/dir/
{maps}
    server {{
        listen 127.0.0.1:{port} default_server;
        server_name _;
        root {root};
        location / {{ index index.html; }}
        # site_server.rs: .html/.htm/no extension = text/html, .txt text/plain, .xml application/xml,
        # any other extension application/octet-stream.
        location ~ "[^/]\.[^./]+$" {{ default_type application/octet-stream; }}
        # A directory without index.html: nginx says 403, site_server.rs 404.
        error_page 403 = @missing;
        location @missing {{ return 404; }}
{extra}
    }}
}}
"""

# The frontier benchmark's leaves go to its Python server, which holds them (nginx-conf
# --proxy-leaves PORT).
LEAF_PROXY = """        location ^~ /p/ {{
            proxy_pass http://127.0.0.1:{port};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_read_timeout 3600s;
        }}"""


def cmd_nginx_conf(a):
    os.makedirs(os.path.join(a.prefix, "tmp"), exist_ok=True)
    if a.shared:
        # The five real sites, by Host header, as tests/it/support/site_server.rs::shared_sites maps them.
        lines = ["    map $host $bench_site {", "        default __unknown_host__;"]
        for h in REAL_SITES:
            lines.append(f"        {h} {h};")
        lines.append("        paraguayos.org www.paraguayos.org;")
        lines.append("    }")
        maps = "\n".join(lines)
        root = f"{a.root}/$bench_site"
    else:
        maps = ""
        root = f"{a.root}/$host"
    user = "user root root;     # master runs as root: keep workers able to read the private temp dir\n" \
        if os.geteuid() == 0 else ""
    extra = LEAF_PROXY.format(port=a.proxy_leaves) if a.proxy_leaves else ""
    with open(os.path.join(a.prefix, "nginx.conf"), "w") as f:
        f.write(NGINX_CONF.format(prefix=a.prefix, port=a.port, root=root, maps=maps, user=user, extra=extra))


def cmd_crawl_config(a):
    """Copy the config; every [net.resolve] entry -> ADDR, plus one entry per listed host."""
    with open(a.base) as f:
        lines = f.read().splitlines()
    extra = []
    if a.hosts_file:
        with open(a.hosts_file) as f:
            extra = [h.strip() for h in f if h.strip()]
    out, in_resolve, done = [], False, False
    entry = re.compile(r'^\s*("[^"]+"|[A-Za-z0-9_.-]+)\s*=\s*"[^"]*"(.*)$')
    for line in lines:
        header = re.match(r"^\s*\[([^\]]+)\]", line)
        if header:
            in_resolve = header.group(1).strip() == "net.resolve"
            out.append(line)
            if in_resolve:
                out.extend(f'"{h}" = "{a.addr}"' for h in extra)
                done = True
            continue
        m = entry.match(line) if in_resolve else None
        if m:
            out.append(f'{m.group(1)} = "{a.addr}"{m.group(2)}')
        else:
            out.append(line)
    if not done:
        out.append("[net.resolve]")
        out.extend(f'"{h}" = "{a.addr}"' for h in extra)
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")


def parse_time_v(path):
    """Fields of a GNU `time -v` output file."""
    r = {}
    if not os.path.exists(path):
        return r
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("Command terminated by signal"):
                r["signal"] = int(line.split()[-1])
            elif ":" in line:
                k, _, v = line.rpartition(": ")
                r[k.strip()] = v.strip()
    out = {}
    try:
        out["user_s"] = float(r["User time (seconds)"])
        out["sys_s"] = float(r["System time (seconds)"])
        out["peak_rss_kb"] = int(r["Maximum resident set size (kbytes)"])
        el = r["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
        out["elapsed_s"] = sum(float(x) * 60 ** i for i, x in enumerate(reversed(el)))
        out["exit_status"] = int(r.get("Exit status", "0"))
    except (KeyError, ValueError):
        pass
    if "signal" in r:
        out["signal"] = r["signal"]
    return out


def parse_access_log(path):
    reqs = []
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 6)
            if len(parts) < 7:
                continue
            msec, rt, host, status, size, ctype, uri = parts
            end = float(msec)
            reqs.append({"start": end - float(rt), "end": end, "host": host, "status": int(status),
                         "bytes": int(size), "ctype": ctype.strip('"'), "uri": uri})
    reqs.sort(key=lambda r: r["start"])
    return reqs


def merge(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def idle_while_due(reqs, delay):
    """Longest (and total) time in which no request of any host is in flight while at least one
    host is due: a host is due from (end of its previous request + delay) until the start of its
    next request. Returns (longest, total, start of the longest)."""
    by_host = defaultdict(list)
    for r in reqs:
        by_host[r["host"]].append(r)
    due = []
    for rs in by_host.values():
        rs.sort(key=lambda r: r["start"])
        for prev, nxt in zip(rs, rs[1:]):
            s = prev["end"] + delay
            if nxt["start"] > s:
                due.append((s, nxt["start"]))
    due = merge(due)
    busy = merge((r["start"], r["end"]) for r in reqs)
    longest, total, at, j = 0.0, 0.0, None, 0
    for s, e in due:
        cur = s
        while j < len(busy) and busy[j][1] <= cur:
            j += 1
        k = j
        while cur < e:
            if k < len(busy) and busy[k][0] <= cur:  # inside a busy interval
                cur = busy[k][1]
                k += 1
                continue
            nxt = min(e, busy[k][0]) if k < len(busy) else e
            if nxt - cur > longest:
                longest, at = nxt - cur, cur
            total += nxt - cur
            cur = nxt
    return longest, total, at


def fmt(v, unit="", digits=2):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:,.{digits}f}{unit}"
    return f"{v:,}{unit}"


def cmd_report(a):
    reqs = parse_access_log(a.log)
    tv = parse_time_v(a.time)
    wall = a.t_end - a.t_start
    per_host = Counter(r["host"] for r in reqs)
    statuses = Counter(r["status"] for r in reqs)
    html200 = sum(1 for r in reqs if r["status"] == 200 and r["ctype"].startswith("text/html"))
    robots = sum(1 for r in reqs if r["uri"].split("?")[0] == "/robots.txt")
    n = len(reqs)
    ideal = max(((c - 1) * a.delay for c in per_host.values()), default=0.0)
    longest, idle_total, idle_at = idle_while_due(reqs, a.delay) if reqs else (0.0, 0.0, None)
    cpu = tv.get("user_s", 0.0) + tv.get("sys_s", 0.0) if tv else None
    counts = sorted(per_host.values())
    first = reqs[0]["start"] if reqs else None
    last = max((r["end"] for r in reqs), default=None)
    records = None
    if a.corpus and os.path.exists(a.corpus):
        with open(a.corpus, "rb") as f:
            records = sum(1 for _ in f)
    res = {
        "bench": a.mode,
        "hosts_expected": a.hosts,
        "hosts_requested": len(per_host),
        "delay_s": a.delay,
        "crawl_exit": a.rc,
        "requests": n,
        "requests_per_host_min": counts[0] if counts else 0,
        "requests_per_host_median": statistics.median(counts) if counts else 0,
        "requests_per_host_max": counts[-1] if counts else 0,
        "robots_requests": robots,
        "html_200": html200,
        "status_counts": {str(k): v for k, v in sorted(statuses.items())},
        "corpus_records": records,
        "wall_s": round(wall, 3),
        "ideal_s": round(ideal, 3),
        "wall_over_ideal": round(wall / ideal, 3) if ideal > 0 else None,
        "requests_per_s": round(n / wall, 2) if wall > 0 else None,
        "ideal_rate_share": round(ideal / wall, 3) if ideal > 0 and wall > 0 else None,
        "request_phase_s": round(last - first, 3) if first and last else None,
        "request_phase_rate_share": round(ideal / (last - first), 3) if ideal > 0 and first and last and last > first else None,
        "longest_idle_while_due_s": round(longest, 3),
        "longest_idle_while_due_at_s": round(idle_at - first, 3) if idle_at is not None else None,
        "idle_while_due_total_s": round(idle_total, 3),
        "start_to_first_request_s": round(first - a.t_start, 3) if first else None,
        "last_request_to_exit_s": round(a.t_end - last, 3) if last else None,
        "peak_rss_mb": round(tv["peak_rss_kb"] / 1024, 1) if "peak_rss_kb" in tv else None,
        "state_bytes": a.state_bytes,
        "state_bytes_per_request": round(a.state_bytes / n) if n else None,
        "cpu_s": round(cpu, 2) if cpu is not None else None,
        "cpu_ms_per_html_page": round(cpu * 1000 / html200, 2) if cpu is not None and html200 else None,
        "cpu_over_wall": round(cpu / wall, 3) if cpu is not None and wall > 0 else None,
        "cpu_wall_floor_s": round(cpu / (os.cpu_count() or 1), 2) if cpu is not None else None,
    }
    rows = [
        ("hosts (requested / expected)", f"{len(per_host):,} / {a.hosts:,}"),
        ("delay", f"{a.delay:g} s"),
        ("requests (all answered)", fmt(n)),
        ("requests per host min/median/max", f"{res['requests_per_host_min']} / "
                                             f"{res['requests_per_host_median']:g} / {res['requests_per_host_max']}"),
        ("status counts", ", ".join(f"{k}: {v:,}" for k, v in sorted(statuses.items()))),
        ("HTML pages fetched (200)", fmt(html200)),
        ("corpus records", fmt(records)),
        ("wall time", fmt(wall, " s")),
        ("ideal time = max_host (requests-1) x delay", fmt(ideal, " s")),
        ("wall / ideal", fmt(res["wall_over_ideal"])),
        ("requests per second", fmt(res["requests_per_s"])),
        ("share of ideal request rate", fmt(res["ideal_rate_share"] * 100, " %", 1)
         if res["ideal_rate_share"] is not None else "n/a"),
        ("request phase (first -> last request)", fmt(res["request_phase_s"], " s")
         + (f" = {res['request_phase_rate_share'] * 100:.1f} % of the ideal rate"
            if res["request_phase_rate_share"] is not None else "")),
        ("longest idle while a host was due", fmt(longest, " s", 3) +
         (f" (at +{res['longest_idle_while_due_at_s']:.1f} s)" if idle_at is not None else "")),
        ("total idle while a host was due", fmt(idle_total, " s", 3)),
        ("start -> first request / last request -> exit",
         f"{fmt(res['start_to_first_request_s'], ' s')} / {fmt(res['last_request_to_exit_s'], ' s')}"),
        ("peak RSS", fmt(res["peak_rss_mb"], " MB", 1)),
        ("state on disk / per answered request",
         f"{a.state_bytes / 1e6:,.1f} MB / {fmt(res['state_bytes_per_request'], ' B')}"),
        ("CPU (user+sys)", fmt(res["cpu_s"], " s")),
        ("CPU per HTML page", fmt(res["cpu_ms_per_html_page"], " ms")),
        ("CPU / wall", fmt(res["cpu_over_wall"], "", 3)),
        (f"CPU / {os.cpu_count() or 1} cores (wall the work needs here)", fmt(res["cpu_wall_floor_s"], " s")),
    ]
    if a.rc != 0:
        rows.append(("crawl exit status", f"{a.rc} (124 = timed out)"))
    w = max(len(r[0]) for r in rows)
    print(f"{'measure':<{w}} | value")
    print(f"{'-' * w}-|-{'-' * 30}")
    for k, v in rows:
        print(f"{k:<{w}} | {v}")
    print(json.dumps(res, sort_keys=False))


# ---------------------------------------------------------------- frontier benchmark server

class FrontierState:
    def __init__(self, n, per_hub, status_file):
        self.n, self.per_hub, self.status_file = n, per_hub, status_file
        self.hubs = (n + per_hub - 1) // per_hub
        self.lock = threading.Lock()
        self.hubs_served = set()
        self.requests = 0
        self.leaf_requests = 0
        self.early_leaf_requests = 0
        self.first_leaf_at = None
        self.release = threading.Event()

    def write_status(self):
        tmp = self.status_file + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"hubs": self.hubs, "hubs_served": len(self.hubs_served), "requests": self.requests,
                       "leaf_requests": self.leaf_requests,
                       "early_leaf_requests": self.early_leaf_requests, "first_leaf_at": self.first_leaf_at}, f)
        os.replace(tmp, self.status_file)


def frontier_handler(state, hold_s):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body, ctype="text/html"):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path = self.path.split("?")[0]
            with state.lock:
                state.requests += 1
            if path == "/robots.txt":
                return self.send(200, b"User-agent: *\nAllow: /\n", "text/plain")
            if path in ("/", "/index.html"):
                links = "".join(f'<li><a href="/hub/{k}.html">hub {k}</a></li>\n' for k in range(state.hubs))
                return self.send(200, page("Frontier benchmark", links))
            m = re.fullmatch(r"/hub/(\d+)\.html", path)
            if m and int(m.group(1)) < state.hubs:
                k = int(m.group(1))
                links = hub_links(k, state.n, state.per_hub)
                with state.lock:
                    state.hubs_served.add(k)
                    state.write_status()
                return self.send(200, page(f"Hub {k}", links))
            if path.startswith("/p/"):
                # A leaf. Once every hub was fetched (with a FIFO queue per host, before any leaf),
                # hold the answer so the crawler stays with a full frontier until the benchmark
                # interrupts it; a leaf asked for earlier is answered at once.
                with state.lock:
                    state.leaf_requests += 1
                    early = len(state.hubs_served) < state.hubs
                    if early:
                        state.early_leaf_requests += 1
                    elif state.first_leaf_at is None:
                        state.first_leaf_at = time.time()
                    state.write_status()
                if early:
                    return self.send(404, b"<html><body>Not found</body></html>")
                state.release.wait(hold_s)
                return self.send(404, b"<html><body>Not found</body></html>")
            return self.send(404, b"<html><body>Not found</body></html>")

    return Handler


def page(title, body):
    text = ("This page belongs to the frontier benchmark of webcorpus. It holds nothing but links to "
            "other pages of the same host, so that a crawler queues a very large number of URLs.")
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{title}</title></head><body>"
            f"<h1>{title}</h1><p>{text}</p>\n<ul>\n{body}</ul></body></html>\n").encode()


def hub_links(k, n, per_hub):
    lo, hi = k * per_hub, min(n, (k + 1) * per_hub)
    return "".join(f'<a href="/p/{k}/{j}.html">page {j}</a>\n' for j in range(lo, hi))


def cmd_frontier_files(a):
    """The frontier benchmark's host as static files for nginx: robots.txt, the seed, the hubs."""
    hubs = (a.n + a.per_hub - 1) // a.per_hub
    os.makedirs(os.path.join(a.root, "hub"), exist_ok=True)
    with open(os.path.join(a.root, "robots.txt"), "w") as f:
        f.write("User-agent: *\nAllow: /\n")
    links = "".join(f'<li><a href="/hub/{k}.html">hub {k}</a></li>\n' for k in range(hubs))
    with open(os.path.join(a.root, "index.html"), "wb") as f:
        f.write(page("Frontier benchmark", links))
    for k in range(hubs):
        with open(os.path.join(a.root, "hub", f"{k}.html"), "wb") as f:
            f.write(page(f"Hub {k}", hub_links(k, a.n, a.per_hub)))


def cmd_frontier_server(a):
    state = FrontierState(a.n, a.per_hub, a.status)
    if a.leaves_only:
        state.hubs_served = set(range(state.hubs))  # nginx serves them; every leaf is held
    state.write_status()

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128

    srv = Server(("127.0.0.1", 0), frontier_handler(state, a.hold))
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(a.port_file + ".tmp", a.port_file)
    import signal

    def stop(*_):
        state.release.set()
        threading.Thread(target=srv.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # SIGUSR1: answer the held leaf requests (404) and every later one at once.
    signal.signal(signal.SIGUSR1, lambda *_: state.release.set())
    srv.serve_forever(poll_interval=0.2)


def cmd_rss(a):
    print(json.dumps(parse_time_v(a.time)))


# ---------------------------------------------------------------- dedup corpus

def paragraphs_of(text):
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def cmd_dedup_corpus(a):
    rng = random.Random(a.seed)
    docs = []
    for s in sorted(os.listdir(a.data)):
        gold = os.path.join(a.data, s, "gold.jsonl")
        if not os.path.isfile(gold):
            continue
        with open(gold, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if r.get("text"):
                    paras = paragraphs_of(r["text"])
                    if paras:
                        docs.append((s, r["id"], paras))
    if not docs:
        sys.exit(f"error: no gold texts under {a.data}")
    all_paras = [p for _s, _i, ps in docs for p in ps]
    target = int(a.mb * 1e6)
    stats = Counter()
    text_bytes = 0
    with open(a.out, "w", encoding="utf-8") as out:
        copy = 0
        while text_bytes < target:
            for s, doc_id, paras in docs:
                if text_bytes >= target:
                    break
                if copy == 0:
                    kind, ps = "original", paras
                elif rng.random() < 0.5:
                    kind, ps = "exact_copy", paras
                else:
                    kind, ps = "variant", []
                    for p in paras:
                        x = rng.random()
                        if x < 0.05:
                            continue  # dropped
                        if x < 0.15:
                            ps.append(rng.choice(all_paras))  # a paragraph of another document
                        elif x < 0.30:
                            words = p.split()  # near duplicate: one word changed
                            if words:
                                words[rng.randrange(len(words))] = rng.choice(["alpha", "beta", "gamma", "delta"])
                            ps.append(" ".join(words))
                        else:
                            ps.append(p)
                    if rng.random() < 0.3:
                        words = rng.choice(paras).split()  # new text: a shuffled paragraph
                        rng.shuffle(words)
                        ps.append(" ".join(words))
                    if not ps:
                        ps = paras
                text = "\n\n".join(ps)
                rec = {"url": f"https://dedup.bench.test/{s}/{doc_id}/{copy}", "text": text,
                       "paragraphs": [{"kind": "paragraph", "text": p} for p in ps]}
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                text_bytes += len(text.encode("utf-8"))
                stats[kind] += 1
            copy += 1
    meta = {"records": sum(stats.values()), "text_bytes": text_bytes, "file_bytes": os.path.getsize(a.out),
            "gold_documents": len(docs), **{k: v for k, v in stats.items()}}
    with open(a.out + ".meta.json", "w") as f:
        json.dump(meta, f)
    print(json.dumps(meta))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("free-port")
    s.set_defaults(f=cmd_free_port)
    s = sub.add_parser("sites")
    s.add_argument("--out", required=True)
    s.add_argument("--hosts", type=int, required=True)
    s.add_argument("--shared-sites", required=True)
    s.add_argument("--domain", default="bench.test")
    s.set_defaults(f=cmd_sites)
    s = sub.add_parser("nginx-conf")
    s.add_argument("--prefix", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--root", required=True, help="directory holding one document root per host")
    s.add_argument("--shared", action="store_true", help="the five real sites (paraguayos.org alias)")
    s.add_argument("--proxy-leaves", type=int, help="send /p/ to this 127.0.0.1 port (frontier benchmark)")
    s.set_defaults(f=cmd_nginx_conf)
    s = sub.add_parser("frontier-files")
    s.add_argument("--root", required=True, help="document root of frontier.bench.test")
    s.add_argument("--n", type=int, required=True)
    s.add_argument("--per-hub", type=int, required=True)
    s.set_defaults(f=cmd_frontier_files)
    s = sub.add_parser("crawl-config")
    s.add_argument("--base", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--addr", required=True)
    s.add_argument("--hosts-file")
    s.set_defaults(f=cmd_crawl_config)
    s = sub.add_parser("report")
    s.add_argument("--mode", required=True)
    s.add_argument("--log", required=True)
    s.add_argument("--time", required=True)
    s.add_argument("--delay", type=float, required=True)
    s.add_argument("--hosts", type=int, required=True)
    s.add_argument("--t-start", type=float, required=True)
    s.add_argument("--t-end", type=float, required=True)
    s.add_argument("--state-bytes", type=int, required=True)
    s.add_argument("--corpus")
    s.add_argument("--rc", type=int, default=0)
    s.set_defaults(f=cmd_report)
    s = sub.add_parser("frontier-server")
    s.add_argument("--n", type=int, required=True)
    s.add_argument("--per-hub", type=int, default=10000)
    s.add_argument("--port-file", required=True)
    s.add_argument("--status", required=True)
    s.add_argument("--hold", type=float, default=600.0, help="seconds a leaf request is held")
    s.add_argument("--leaves-only", action="store_true",
                   help="nginx serves the hubs (frontier-files): hold every leaf request")
    s.set_defaults(f=cmd_frontier_server)
    s = sub.add_parser("rss")
    s.add_argument("--time", required=True)
    s.set_defaults(f=cmd_rss)
    s = sub.add_parser("dedup-corpus")
    s.add_argument("--data", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--mb", type=float, default=40)
    s.add_argument("--seed", type=int, default=1)
    s.set_defaults(f=cmd_dedup_corpus)
    a = p.parse_args()
    a.f(a)


if __name__ == "__main__":
    main()
