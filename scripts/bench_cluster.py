#!/usr/bin/env python3
"""Helper of scripts/bench-cluster.sh: watch Redis during a cluster crawl, report a run, measure
the two cross-worker dedup designs, print the table. Talks RESP to Redis over a socket (no
client package needed)."""

import argparse
import hashlib
import json
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PARTITIONS = 64


class Redis:
    """A minimal RESP2 client: enough for INFO, HGETALL, XINFO, SCARD, SADD, XADD, DEL."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("redis closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            self.buf += self.sock.recv(1 << 16)
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ValueError(f"bad reply {line!r}")

    @staticmethod
    def _encode(args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if not isinstance(a, bytes):
                a = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def pipeline(self, commands):
        self.sock.sendall(b"".join(self._encode(c) for c in commands))
        return [self._reply() for _ in commands]

    def cmd(self, *args):
        return self.pipeline([args])[0]

    def info(self, section):
        text = self.cmd("INFO", section).decode()
        return dict(l.split(":", 1) for l in text.splitlines() if ":" in l and not l.startswith("#"))


def stream_key(name, p):
    return f"webcorpus:{{{name}.{p}}}:q"


def queued(r, name):
    replies = r.pipeline([("XINFO", "STREAM", stream_key(name, p)) for p in range(PARTITIONS)])
    total = 0
    for rep in replies:
        if isinstance(rep, list):
            fields = dict(zip(rep[::2], rep[1::2]))
            total += int(fields.get(b"length", 0))
    return total


def cmd_watch(a):
    r = Redis(a.port)
    samples = []
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    while not stop:
        mem = int(r.info("memory")["used_memory"])
        samples.append({"t": time.time(), "mem": mem, "queued": queued(r, a.name)})
        Path(a.out).write_text(json.dumps(samples))
        time.sleep(0.25)
    Path(a.out).write_text(json.dumps(samples))


def payloads(run, limit=1000):
    """Stream payloads like the crawl's own, from the corpus URLs of the run."""
    out = []
    for corpus in sorted(Path(run).glob("w*/corpus/corpus.jsonl")):
        for line in corpus.read_text().splitlines():
            rec = json.loads(line)
            url = rec["url"]
            host = rec.get("host") or url.split("/")[2]
            out.append(json.dumps({"h": host, "u": url, "d": 1, "s": f"http://{host}/"}, separators=(",", ":")))
            if len(out) >= limit:
                return out
    return out or ['{"h":"h0001.bench.test","u":"http://h0001.bench.test/p01.html","d":1,"s":"http://h0001.bench.test/"}']


def cmd_report(a):
    r = Redis(a.port)
    stats = r.info("commandstats")
    calls = {k[len("cmdstat_"):]: int(re.search(r"calls=(\d+)", v).group(1)) for k, v in stats.items()}
    own = {"info", "xinfo|stream", "xinfo", "config|resetstat", "config", "ping"}
    worker_calls = sum(n for c, n in calls.items() if c not in own)
    statuses = r.cmd("HGETALL", f"webcorpus:{{{a.name}}}:status") or []
    workers = [json.loads(v) for v in statuses[1::2]]
    workers.sort(key=lambda w: w["worker"])
    samples = json.loads(Path(a.watch).read_text()) if Path(a.watch).exists() else []
    before = samples[0]["mem"] if samples else 0
    peak = max((s["mem"] for s in samples), default=0)
    max_queued = max((s["queued"] for s in samples), default=0)
    end = int(r.info("memory")["used_memory"])
    cpu = r.info("cpu")
    redis_cpu = float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])
    pages = sum(w["fetched_run"] for w in workers)
    # Seen sets: bytes per URL seen.
    seen_keys = [f"webcorpus:{{{a.name}.{p}}}:seen" for p in range(PARTITIONS)]
    seen = sum(r.pipeline([("SCARD", k) for k in seen_keys]))
    r.pipeline([("DEL", k) for k in seen_keys])
    after_seen = int(r.info("memory")["used_memory"])
    # Stream entries: 100,000 of the crawl's own payloads, then delivered (pending) to a group.
    sample = payloads(a.run)
    m0 = int(r.info("memory")["used_memory"])
    n = 100_000
    for start in range(0, n, 1000):
        r.pipeline([("XADD", "bench:scratch", "*", "u", sample[i % len(sample)]) for i in range(start, start + 1000)])
    m1 = int(r.info("memory")["used_memory"])
    r.cmd("XGROUP", "CREATE", "bench:scratch", "g", "0")
    for _ in range(n // 1000):
        r.cmd("XREADGROUP", "GROUP", "g", "c", "COUNT", 1000, "STREAMS", "bench:scratch", ">")
    m2 = int(r.info("memory")["used_memory"])
    r.cmd("DEL", "bench:scratch")
    out = {
        "workers": a.workers,
        "hosts": a.hosts,
        "wall_s": round(a.wall, 2),
        "pages": pages,
        "pages_per_s": round(pages / a.wall, 1) if a.wall else 0,
        "per_worker": [
            {
                "worker": w["worker"],
                "pages": w["fetched_run"],
                "pages_per_s": round(w["fetched_run"] / a.wall, 1) if a.wall else 0,
                "records": w["records"],
            }
            for w in workers
        ],
        "redis_cpu_s": round(redis_cpu, 2),
        "redis_cpu_share": round(redis_cpu / a.wall, 3) if a.wall else None,
        "redis_mem_before": before,
        "redis_mem_peak": peak,
        "redis_mem_end": end,
        "max_queued_entries": max_queued,
        "seen_urls": seen,
        "bytes_per_seen_url": round((end - after_seen) / seen, 1) if seen else None,
        "bytes_per_queued_url": round((m1 - m0) / n, 1),
        "bytes_per_delivered_url": round((m2 - m0) / n, 1),
        "fixed_bytes": max(after_seen - before, 0),
        "commands_per_page": round(worker_calls / pages, 2) if pages else None,
        "stream_entries_per_page": round(calls.get("xadd", 0) / pages, 2) if pages else None,
        "commands": {c: n for c, n in sorted(calls.items()) if c not in own},
    }
    print(json.dumps(out))


def ngrams(text, n=7):
    words = text.lower().split()
    for i in range(max(len(words) - n + 1, 0)):
        yield hashlib.blake2b(" ".join(words[i:i + n]).encode(), digest_size=8).digest()


def cmd_dedup_cost(a):
    corpora = [Path(a.run) / f"w{i}" / "corpus" / "corpus.jsonl" for i in range(1, a.workers + 1)]
    corpora = [c for c in corpora if c.exists()]
    merged = Path(a.run) / "merged.jsonl"
    t0 = time.time()
    proc = subprocess.run([a.bin, "dedup", *map(str, corpora), "--out", str(merged), "--config", a.config, "--quiet"],
                          capture_output=True, text=True, check=True)
    batch_s = time.time() - t0
    summary = (proc.stdout + proc.stderr).strip().splitlines()[-1] if (proc.stdout + proc.stderr).strip() else ""
    dropped = re.search(r"(\d+) duplicates dropped", summary)
    mb = sum(c.stat().st_size for c in corpora) / 1e6
    # The shared-set design: every distinct n-gram hash (8 bytes) in 64 sharded Redis sets.
    r = Redis(a.port)
    pages, grams = 0, set()
    per_page = []
    for c in corpora:
        for line in c.read_text().splitlines():
            rec = json.loads(line)
            g = list(ngrams(rec.get("text", "")))
            per_page.append(len(g))
            grams.update(g)
            pages += 1
    m0 = int(r.info("memory")["used_memory"])
    items = list(grams)
    for start in range(0, len(items), 1000):
        chunk = items[start:start + 1000]
        r.pipeline([("SADD", f"bench:ngrams:{h[0] % PARTITIONS}", h) for h in chunk])
    m1 = int(r.info("memory")["used_memory"])
    r.pipeline([("DEL", f"bench:ngrams:{p}") for p in range(PARTITIONS)])
    print(json.dumps({
        "batch_pass_s": round(batch_s, 2),
        "batch_pass_mb": round(mb, 2),
        "batch_pass_mb_per_s": round(mb / batch_s, 1) if batch_s else None,
        "batch_duplicates_dropped": int(dropped.group(1)) if dropped else None,
        "batch_summary": summary,
        "shared_set_ngrams": len(items),
        "shared_set_bytes_per_ngram": round((m1 - m0) / len(items), 1) if items else None,
        "shared_set_ngrams_per_page": round(sum(per_page) / pages, 1) if pages else None,
        "shared_set_round_trips_per_page": 1,
    }))


def cmd_single(a):
    stats = json.loads(Path(a.stats).read_text())
    pages = stats["counters"]["fetched"]
    print(json.dumps({"wall_s": round(a.wall, 2), "pages": pages, "pages_per_s": round(pages / a.wall, 1), "hosts": a.hosts}))


def cmd_table(a):
    runs = [json.loads(Path(p).read_text()) for p in a.reports]
    dedup = json.loads(Path(a.dedup).read_text())
    single = json.loads(Path(a.single).read_text())
    print(f"single-machine crawl: {single['wall_s']} s, {single['pages']} pages, {single['pages_per_s']} pages/s")
    print(f"{'workers':>7} {'wall s':>7} {'pages':>6} {'pages/s':>8} {'vs single':>9} {'per worker pages/s':<26} "
          f"{'redis peak MB':>13} {'max queued':>10} {'cmds/page':>9} {'B/queued URL':>12} {'B/pending URL':>13} "
          f"{'B/seen URL':>10} {'fixed KB':>8} {'redis CPU':>9}")
    for r in runs:
        per = " ".join(str(w["pages_per_s"]) for w in r["per_worker"])
        ratio = r["pages_per_s"] / single["pages_per_s"] if single["pages_per_s"] else 0
        print(f"{r['workers']:>7} {r['wall_s']:>7} {r['pages']:>6} {r['pages_per_s']:>8} {ratio:>9.2f} {per:<26} "
              f"{r['redis_mem_peak'] / 1e6:>13.2f} {r['max_queued_entries']:>10} {r['commands_per_page']:>9} "
              f"{r['bytes_per_queued_url']:>12} {r['bytes_per_delivered_url']:>13} {r['bytes_per_seen_url']:>10} "
              f"{r['fixed_bytes'] / 1e3:>8.0f} {r['redis_cpu_share']:>9.1%}")
    print(f"dedup across workers, batch pass (webcorpus dedup, worker order): {dedup['batch_pass_s']} s for "
          f"{dedup['batch_pass_mb']} MB ({dedup['batch_pass_mb_per_s']} MB/s), "
          f"{dedup['batch_duplicates_dropped']} duplicate paragraphs dropped")
    print(f"dedup across workers, shared n-gram set in Redis: {dedup['shared_set_ngrams']} distinct 7-grams, "
          f"{dedup['shared_set_bytes_per_ngram']} B each, {dedup['shared_set_ngrams_per_page']} n-grams per page "
          f"sent in {dedup['shared_set_round_trips_per_page']} round trip per page")
    print(json.dumps({"single": single, "runs": runs, "dedup": dedup}))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("watch")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--name", required=True)
    s = sub.add_parser("report")
    for k in ("--port", "--workers", "--hosts"):
        s.add_argument(k, type=int, required=True)
    s.add_argument("--wall", type=float, required=True)
    for k in ("--name", "--watch", "--run", "--bin", "--config"):
        s.add_argument(k, required=True)
    s = sub.add_parser("dedup-cost")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--workers", type=int, required=True)
    for k in ("--run", "--bin", "--config"):
        s.add_argument(k, required=True)
    s = sub.add_parser("single")
    s.add_argument("--stats", required=True)
    s.add_argument("--wall", type=float, required=True)
    s.add_argument("--hosts", type=int, required=True)
    s = sub.add_parser("table")
    s.add_argument("--dedup", required=True)
    s.add_argument("--single", required=True)
    s.add_argument("reports", nargs="+")
    a = p.parse_args()
    {"watch": cmd_watch, "report": cmd_report, "dedup-cost": cmd_dedup_cost, "single": cmd_single,
     "table": cmd_table}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
