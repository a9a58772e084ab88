#!/usr/bin/env python3
"""Mixed queries against `gleaner serve`'s /api/v1/search at concurrency 1
and 8: 1-3 words drawn from the bench vocabulary (Zipfian, as the text),
phrases, site and language filters, date ranges, date order; facets on,
snippets on. Prints p50 / p95 / p99 latency and queries per second.
Usage: bench-search.py BASE_URL VOCAB_FILE [QUERIES]"""
import http.client, random, statistics, sys, threading, time, urllib.parse

base, vocab_file = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
words = [w.strip() for w in open(vocab_file) if w.strip()]
rng = random.Random(11)
weights = [1.0 / (r + 1) for r in range(len(words))]

def query():
    k = rng.choice([1, 1, 2, 2, 3])
    ws = rng.choices(words, weights, k=k)
    p = {}
    kind = rng.random()
    if kind < 0.15:
        p["q"] = '"' + " ".join(ws[:2]) + '"'
    else:
        p["q"] = " ".join(ws)
    if rng.random() < 0.25:
        p["site"] = f"site{rng.randrange(50)}.example"
    if rng.random() < 0.2:
        p["lang"] = rng.choice(["en", "de", "fr", "es", "it"])
    if rng.random() < 0.2:
        m = rng.randrange(1, 12)
        p["from"], p["to"] = f"2025-{m:02d}-01", f"2025-{m + 1:02d}-01"
    if rng.random() < 0.2:
        p["sort"] = "newest"
    return "/api/v1/search?" + urllib.parse.urlencode(p)

queries = [query() for _ in range(n)]
host = urllib.parse.urlparse(base).netloc

def run(concurrency):
    latencies, hits, lock = [], [0], threading.Lock()
    todo = list(queries)
    def worker():
        c = http.client.HTTPConnection(host, timeout=30)
        while True:
            with lock:
                if not todo:
                    break
                q = todo.pop()
            t0 = time.perf_counter()
            c.request("GET", q)
            r = c.getresponse()
            body = r.read()
            dt = time.perf_counter() - t0
            if r.status != 200:
                raise SystemExit(f"{q}: {r.status} {body[:200]}")
            with lock:
                latencies.append(dt * 1000)
                hits[0] += body.count(b'"url"') > 0
    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for t in threads: t.start()
    for t in threads: t.join()
    wall = time.perf_counter() - t0
    lat = sorted(latencies)
    q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))]
    print(f"concurrency {concurrency}: {len(lat)} queries, p50 {q(0.5):.1f} ms, p95 {q(0.95):.1f} ms, "
          f"p99 {q(0.99):.1f} ms, {len(lat) / wall:.0f} queries/s ({hits[0]} with hits)")

for c in (1, 8):
    run(c)
