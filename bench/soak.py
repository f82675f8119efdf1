#!/usr/bin/env python3
"""Soak: a real `umwelt serve` under mixed hostile traffic beside legitimate
searches, for a fixed time, all on loopback.

  bench/soak.py --umwelt build/src/cli/umwelt --corpus C.db [--seconds 600]

Hostile traffic, each on threads of its own, bounded in count and time:
  - slowloris from 4 addresses (127.0.0.2-5): connections that send a header
    line now and then and never finish;
  - unknown bearer tokens (the server runs with a tokens-only auth file);
  - MCP initialize floods and notifications/cancelled with 1 MiB ids;
  - long paths (30,000 bytes), long Cookie and Range headers, ambiguous
    framing (Content-Length with Transfer-Encoding).
Legitimate: one client on 127.0.0.9 searching with a valid token, one
request at a time. Reports whether the process stayed up, the legitimate
searches' count, errors, p50/p99 latency, and the server's RSS idle, once
warm (after the first tenth of the run, at most 60 s: thread stacks, the
session tables and caches filled to their bounds) and at the end; exits 1
if the server died, p99 > 1 s or RSS grew more than 10 % from warm to end.
"""
import argparse, hashlib, json, os, random, socket, subprocess, sys, tempfile, threading, time

TOKEN = "soak-token-0123456789"


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def connect(port, source="127.0.0.1", timeout=5):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def request(port, raw, source="127.0.0.1", timeout=5):
    """Sends `raw`, returns the status line ('' on failure)."""
    try:
        s = connect(port, source, timeout)
        s.sendall(raw)
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        s.close()
        return data.split(b"\r\n", 1)[0].decode("latin-1")
    except OSError:
        return ""


def get(path, headers=(), body=None, method="GET"):
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers]
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")


class Soak:
    def __init__(self, port, seconds):
        self.port, self.deadline = port, time.time() + seconds
        self.stop = threading.Event()
        self.lat, self.errors, self.hostile = [], 0, 0
        self.lock = threading.Lock()

    def running(self):
        return not self.stop.is_set() and time.time() < self.deadline

    def slowloris(self, source):
        held = []
        while self.running():
            try:
                while len(held) < 80:
                    s = connect(self.port, source, 2)
                    s.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                    held.append(s)
            except OSError:
                pass
            for s in list(held):
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    held.remove(s)
            self.count()
            time.sleep(1)
        for s in held:
            s.close()

    def tokens(self):
        while self.running():
            request(self.port, get("/api/status", [("Authorization", f"Bearer guess-{random.random()}")]), "127.0.0.6")
            self.count()

    def mcp(self):
        auth = [("Authorization", f"Bearer {TOKEN}"), ("Content-Type", "application/json")]
        init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "soak", "version": "1"}}}).encode()
        cancel = json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": "x" * (1 << 20)}}).encode()
        while self.running():
            try:
                s = connect(self.port, "127.0.0.7")
                s.sendall(get("/mcp", auth, init, "POST"))
                head = s.recv(65536).decode("latin-1")
                s.close()
                sid = next((l.split(":", 1)[1].strip() for l in head.split("\r\n")
                            if l.lower().startswith("mcp-session-id:")), "")
                if sid:
                    request(self.port, get("/mcp", auth + [("Mcp-Session-Id", sid)], cancel, "POST"), "127.0.0.7")
            except OSError:
                pass
            self.count()

    def malformed(self):
        cases = [get("/summaries/" + "A" * 30000), get("/api/status", [("Cookie", " " * 30000)]),
                 get("/corpus-index.db", [("Range", " " * 30000)]),
                 b"POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                 get("/x%0aforged%1b]52;c;AA%07")]
        while self.running():
            request(self.port, random.choice(cases), "127.0.0.8")
            self.count()

    def legitimate(self):
        words = ["loss", "checkpoint", "MFU", "eval", "tokenizer", "GPU", "learning rate", "data"]
        while self.running():
            q = random.choice(words).replace(" ", "%20")
            t0 = time.time()
            status = request(self.port, get(f"/api/search?q={q}&k=20", [("Authorization", f"Bearer {TOKEN}")]),
                             "127.0.0.9", timeout=10)
            took = time.time() - t0
            with self.lock:
                self.lat.append(took)
                if not status.startswith("HTTP/1.1 200"):
                    self.errors += 1
            time.sleep(0.05)

    def count(self):
        with self.lock:
            self.hostile += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--umwelt", default="build/src/cli/umwelt")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--seconds", type=int, default=600)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="umwelt-soak-")
    auth = os.path.join(tmp, "auth.json")
    with open(auth, "w") as f:
        json.dump({"tokens": [{"sha256": hashlib.sha256(TOKEN.encode()).hexdigest(), "login": "soak"}]}, f)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = open(os.path.join(tmp, "serve.log"), "w")
    proc = subprocess.Popen([a.umwelt, "--corpus", a.corpus, "serve", "--port", str(port), "--auth", auth],
                            stdout=log, stderr=subprocess.STDOUT)
    for _ in range(100):
        if request(port, get("/healthz")).startswith("HTTP/1.1 200"):
            break
        time.sleep(0.1)
    else:
        print("soak: the server did not start", file=sys.stderr)
        proc.kill()
        return 1
    soak = Soak(port, a.seconds)
    for _ in range(3):  # warm: the first searches open the indexes
        request(port, get("/api/search?q=loss", [("Authorization", f"Bearer {TOKEN}")]), "127.0.0.9", timeout=30)
    rss_start = rss_kb(proc.pid)
    threads = [threading.Thread(target=soak.slowloris, args=(f"127.0.0.{i}",)) for i in (2, 3, 4, 5)]
    threads += [threading.Thread(target=f) for f in (soak.tokens, soak.mcp, soak.malformed, soak.legitimate)]
    for t in threads:
        t.start()
    rss_peak = rss_start
    warm_at, rss_warm = time.time() + min(60, a.seconds / 10), 0
    while time.time() < soak.deadline and proc.poll() is None:
        time.sleep(1)
        rss_peak = max(rss_peak, rss_kb(proc.pid))
        if not rss_warm and time.time() >= warm_at:
            rss_warm = rss_kb(proc.pid)
    soak.stop.set()
    for t in threads:
        t.join()
    alive = proc.poll() is None
    rss_end = rss_kb(proc.pid) if alive else 0
    proc.terminate()
    proc.wait(timeout=30)
    lat = sorted(soak.lat) or [0]
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
    out = {"seconds": a.seconds, "alive": alive, "legitimate_searches": len(soak.lat), "legitimate_errors": soak.errors,
           "p50_ms": round(p(0.5) * 1000, 1), "p99_ms": round(p(0.99) * 1000, 1), "max_ms": round(lat[-1] * 1000, 1),
           "hostile_actions": soak.hostile, "rss_idle_mb": round(rss_start / 1024, 1),
           "rss_warm_mb": round(rss_warm / 1024, 1),
           "rss_peak_mb": round(rss_peak / 1024, 1), "rss_end_mb": round(rss_end / 1024, 1)}
    print(json.dumps(out))
    ok = alive and p(0.99) <= 1.0 and rss_end <= (rss_warm or rss_start) * 1.10
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
