#!/usr/bin/env python3
"""Helpers for scripts/bench.sh (stdlib only): run a command and record its wall time and
peak RSS, summarise the records, write the 50-server config, open an MCP session for oha,
and read the figures out of scout's JSON report and oha's JSON output.

  bench_tools.py run RECORDS LABEL LOG -- CMD ARGS...   run CMD, append one JSON record
  bench_tools.py summary RECORDS                        medians per label, ratio, peak RSS
  bench_tools.py ratios RECORDS A/B...                  the ratio of two labels' median walls
  bench_tools.py scaling-config OUT ROOT N FIRST_PORT   a config with N servers
  bench_tools.py stdio-fleet OUT ROOT N                 a config with N stdio demo servers
  bench_tools.py cpu-floor RECORDS MANY ONE N           the shortest N CPU-bound runs can take
  bench_tools.py session URL                            initialize; print the session id
  bench_tools.py assessed REPORT                        findings that are not skips
  bench_tools.py throughput REPORT                      scout's throughput finding, parsed
  bench_tools.py oha OHA_JSON                           oha's requests/s and success rate
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def run(records, label, log, cmd):
    """Runs cmd in a fresh process and records its wall time and peak RSS.

    The peak RSS comes from GNU time (/usr/bin/time -f %M), a small C program between this
    helper and the command. Measured from here (RUSAGE_CHILDREN), a child's peak would
    include this Python process's own image, which the child carries until its exec: about
    22 MiB, more than scout itself uses."""
    gnu_time = "/usr/bin/time"
    if not os.access(gnu_time, os.X_OK):
        sys.exit("bench: GNU time (/usr/bin/time) is needed to measure peak RSS: apt-get install time")
    with tempfile.NamedTemporaryFile("r", suffix=".rss", delete=False) as rss_file:
        rss_path = rss_file.name
    started = time.monotonic()
    try:
        with open(log, "w", encoding="utf-8") as out:
            code = subprocess.call([gnu_time, "-q", "-f", "%M %U %S", "-o", rss_path, *cmd],
                                   stdout=out, stderr=subprocess.STDOUT)
        wall = time.monotonic() - started
        with open(rss_path, encoding="utf-8") as f:
            # Peak RSS in KiB, then user and system CPU seconds (of the command and every
            # child it waited for).
            rss, user, system = f.read().strip().splitlines()[-1].split()
            rss_kib, cpu = int(rss), float(user) + float(system)
    finally:
        os.unlink(rss_path)
    record = {"label": label, "wall": wall, "rss_kib": rss_kib, "cpu": cpu, "code": code}
    # scout run with SCOUT_LOG=info says its own peak: GNU time's is the largest process it
    # waited for, which over stdio is the server whenever the server is the bigger one.
    with open(log, encoding="utf-8", errors="replace") as f:
        own = re.findall(r"scout's own peak resident memory kib=(\d+)", f.read())
    if own:
        record["own_rss_kib"] = max(int(k) for k in own)
    with open(records, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
    return code


def load(records):
    with open(records, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def own_peak(rs):
    """scout's own peak RSS over the runs that logged it, for the summary line."""
    own = [r["own_rss_kib"] for r in rs if "own_rss_kib" in r]
    if not own:
        return ""
    return f", scout's own {max(own) / 1024:.1f} MiB (median {statistics.median(own) / 1024:.1f})"


def summary(records):
    rows = load(records)
    by = {}
    for r in rows:
        by.setdefault(r["label"], []).append(r)
    med = {}
    for label, rs in by.items():
        walls = [r["wall"] for r in rs]
        rss = [r["rss_kib"] for r in rs]
        cpu = [r.get("cpu", 0.0) for r in rs]
        med[label] = statistics.median(walls)
        print(f"  {label:<22} runs {len(rs):>2}  median {statistics.median(walls):6.2f} s  "
              f"min {min(walls):6.2f} s  max {max(walls):6.2f} s  CPU {statistics.median(cpu):5.2f} s  "
              f"peak RSS {max(rss) / 1024:6.1f} MiB (median {statistics.median(rss) / 1024:.1f} MiB)"
              + own_peak(rs))
    return med


def ratios(records, pairs):
    """Prints, for each A/B, the median wall of label A over that of label B."""
    by = {}
    for r in load(records):
        by.setdefault(r["label"], []).append(r["wall"])
    for pair in pairs:
        a, b = pair.split("/")
        if a in by and b in by:
            print(f"  ratio {a}/{b} (median wall): {statistics.median(by[a]) / statistics.median(by[b]):.2f}")


def cpu_floor(records, many, one, n):
    """How short N runs can be on this machine's cores when each is CPU-bound: N times one
    run's CPU time (scout and its server together) over the cores, as a multiple of one run."""
    by = {}
    for r in load(records):
        by.setdefault(r["label"], []).append(r)
    one_wall = statistics.median(r["wall"] for r in by[one])
    one_cpu = statistics.median(r.get("cpu", 0.0) for r in by[one])
    cores = os.cpu_count() or 1
    floor = n * one_cpu / cores
    print(f"  one server uses {one_cpu:.2f} s of CPU in {one_wall:.2f} s; {n} of them on {cores} cores "
          f"need at least {floor:.2f} s, {floor / one_wall:.1f}× one server (CPU of the whole fleet run: "
          f"{statistics.median(r.get('cpu', 0.0) for r in by[many]):.2f} s)")


def stdio_fleet(out, root, n):
    """N copies of the demo server over stdio."""
    demo = os.path.join(root, "target/release/examples/demo-server")
    lines = ["# Generated by scripts/bench.sh: the stdio fleet benchmark's servers.", "[default]", ""]
    for i in range(n):
        lines += ["[[default.servers]]", f'name = "demo-stdio-{i}"', f'command = ["{demo}", "stdio"]', ""]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def scaling_config(out, root, n, first_port):
    """N servers: the demo server and server-everything, each over stdio and over HTTP
    (started by scout itself on its own loopback port)."""
    demo = os.path.join(root, "target/release/examples/demo-server")
    everything = os.path.join(root, "tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
    lines = ["# Generated by scripts/bench.sh: the scaling benchmark's servers.", "[default]", ""]
    for i in range(n):
        port = first_port + i
        kind = i % 4
        lines.append("[[default.servers]]")
        if kind == 0:
            lines += [f'name = "demo-stdio-{i}"', f'command = ["{demo}", "stdio"]']
        elif kind == 1:
            lines += [f'name = "everything-stdio-{i}"', f'command = ["node", "{everything}", "stdio"]']
        elif kind == 2:
            lines += [f'name = "demo-http-{i}"', f'url = "http://127.0.0.1:{port}/mcp"',
                      f'start = ["{demo}", "http", "--port", "{port}"]']
        else:
            lines += [f'name = "everything-http-{i}"', f'url = "http://127.0.0.1:{port}/mcp"',
                      f'start = ["env", "PORT={port}", "node", "{everything}", "streamableHttp"]']
        lines.append("")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def post(url, body, headers):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        **headers,
    })
    with urllib.request.urlopen(req, timeout=10) as resp:
        resp.read()
        return resp.headers


def session(url):
    """A handshake-era session (server-everything speaks only that era): initialize and
    notifications/initialized; prints the session id."""
    h = post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "scout-bench", "version": "0"}}}, {})
    sid = h.get("mcp-session-id")
    if not sid:
        sys.exit("bench: the server issued no Mcp-Session-Id")
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"},
         {"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"})
    print(sid)


def findings(report):
    with open(report, encoding="utf-8") as f:
        doc = json.load(f)
    return [f for s in doc.get("servers", []) for f in s.get("findings", [])]


def assessed(report):
    fs = findings(report)
    judged = [f for f in fs if f.get("status") != "skip"]
    print(f"{len(judged)} of {len(fs)} findings assessed (not skipped), "
          f"{len({f['id'] for f in judged})} distinct checks")


def throughput(report):
    for f in findings(report):
        if f.get("id") == "performance.throughput":
            detail = f.get("detail", "")
            m = re.search(r"16 in flight: (\d+) req/s \((\d+) requests", detail)
            if not m:
                sys.exit(f"bench: no 16-in-flight stage in: {detail}")
            print(f"{m.group(1)} req/s over {m.group(2)} requests at 16 in flight "
                  f"({f.get('status')}: {detail.split('. ')[0]}.)")
            return
    sys.exit("bench: the report has no performance.throughput finding")


def validation(records, logs):
    """The official-schema validation's share of scout's wall time: each run's log (scout
    with SCOUT_LOG=info) has an "official schema validation ... micros=N" line."""
    walls = [r["wall"] for r in load(records) if r["label"] == "scout"]
    spent = []
    for log in logs:
        with open(log, encoding="utf-8", errors="replace") as f:
            micros = [int(m) for m in re.findall(r"official schema validation.*?micros=(\d+)", f.read())]
        if not micros:
            sys.exit(f"bench: no validation timing in {log} (was SCOUT_LOG=info set?)")
        spent.append(sum(micros) / 1e6)
    v, w = statistics.median(spent), statistics.median(walls)
    print(f"  official schema validation: median {v * 1000:.1f} ms a run, "
          f"{v / w * 100:.2f} % of scout's median wall time ({w:.2f} s)")


def oha(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    s = doc.get("summary", {})
    codes = doc.get("statusCodeDistribution", {})
    print(f"{s.get('requestsPerSec', 0):.0f} req/s, success rate {s.get('successRate', 0) * 100:.0f}%, "
          f"status codes {codes}")


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    cmd, rest = args[0], args[1:]
    if cmd == "run":
        records, label, log = rest[:3]
        sys.exit(run(records, label, log, rest[4:] if rest[3:4] == ["--"] else rest[3:]))
    elif cmd == "summary":
        med = summary(rest[0])
        if "scout" in med and "conformance" in med:
            print(f"  ratio scout/conformance (median wall): {med['scout'] / med['conformance']:.2f}")
    elif cmd == "ratios":
        ratios(rest[0], rest[1:])
    elif cmd == "stdio-fleet":
        stdio_fleet(rest[0], rest[1], int(rest[2]))
    elif cmd == "cpu-floor":
        cpu_floor(rest[0], rest[1], rest[2], int(rest[3]))
    elif cmd == "scaling-config":
        scaling_config(rest[0], rest[1], int(rest[2]), int(rest[3]))
    elif cmd == "session":
        session(rest[0])
    elif cmd == "assessed":
        assessed(rest[0])
    elif cmd == "throughput":
        throughput(rest[0])
    elif cmd == "oha":
        oha(rest[0])
    elif cmd == "validation":
        validation(rest[0], rest[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
