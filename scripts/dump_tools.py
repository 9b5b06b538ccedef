"""Starts installed MCP servers over stdio and writes what their `tools/list` says.

Called by scripts/gather-descriptions.sh:
    dump_tools.py INSTALL_DIR OUT.json NPM_SPEC... -- PYPI_SPEC...

Each server runs in a network namespace of its own (`unshare --net`: loopback only), with a
throw-away HOME and dummy credentials, so starting it reaches no host and touches no real
account. Only `initialize`, `notifications/initialized` and `tools/list` (every page) are
sent. The output lists, per server, its package, version and the tools as listed (name,
title, description, inputSchema, annotations): the fields scout's text rules read.
"""
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT = 60.0

# Dummy credentials some servers want before they list their tools; nothing is called.
DUMMY_ENV = {
    "GITHUB_PERSONAL_ACCESS_TOKEN": "dummy-not-a-token",
    "FIRECRAWL_API_KEY": "fc-dummy-not-a-key",
    "BROWSERBASE_API_KEY": "dummy-not-a-key",
    "BROWSERBASE_PROJECT_ID": "dummy-project",
    "GEMINI_API_KEY": "dummy-not-a-key",
    "NOTION_TOKEN": "dummy-not-a-token",
    "OPENAPI_MCP_HEADERS": '{"Authorization": "Bearer dummy", "Notion-Version": "2022-06-28"}',
    "FASTMCP_LOG_LEVEL": "ERROR",
    "DO_NOT_TRACK": "1",
}


def npm_command(install, spec, scratch):
    """The command line of an installed npm package's server (its first `bin`)."""
    name = spec.rsplit("@", 1)[0]
    pkg_dir = os.path.join(install, "node", "node_modules", name)
    with open(os.path.join(pkg_dir, "package.json")) as f:
        pkg = json.load(f)
    bins = pkg.get("bin")
    if isinstance(bins, dict):
        short = name.split("/")[-1]
        path = bins.get(short) or bins.get(name) or next(iter(bins.values()))
    else:
        path = bins
    cmd = ["node", os.path.join(pkg_dir, path)]
    extra = {
        "@modelcontextprotocol/server-filesystem": [scratch],
        "@bytebase/dbhub": ["--transport", "stdio", "--dsn", "sqlite:///:memory:"],
        "@playwright/mcp": ["--headless", "--isolated"],
        "@modelcontextprotocol/server-everything": ["stdio"],
    }.get(name, [])
    return name, pkg.get("version", "?"), cmd + extra


def pypi_command(install, spec, scratch):
    """The command line of an installed PyPI package's server (its console script)."""
    name = spec.split("==")[0]
    version = spec.split("==")[1] if "==" in spec else "?"
    script = os.path.join(install, "py", "venv", "bin", name)
    extra = {
        "arxiv-mcp-server": ["--storage-path", scratch],
        "mcp-server-sqlite": ["--db-path", os.path.join(scratch, "corpus.db")],
    }.get(name, [])
    return name, version, [script] + extra


class Wire:
    def __init__(self, cmd, home):
        env = dict(os.environ)
        env.update(DUMMY_ENV)
        env["HOME"] = home
        env["XDG_CONFIG_HOME"] = os.path.join(home, ".config")
        env["XDG_CACHE_HOME"] = os.path.join(home, ".cache")
        self.proc = subprocess.Popen(
            ["unshare", "--net", "--"] + cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, cwd=home)
        self.buf = b""
        self.next_id = 1

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue  # a banner or log line on stdout
                if isinstance(msg, dict) and msg.get("id") == rid and "method" not in msg:
                    if "error" in msg:
                        raise RuntimeError(f"{method}: {msg['error']}")
                    return msg.get("result", {})
            ready, _, _ = select.select([self.proc.stdout], [], [], 1.0)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    raise RuntimeError(f"{method}: the server exited")
                self.buf += chunk
        raise RuntimeError(f"{method}: no answer within {TIMEOUT:.0f} s")

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


KEPT = ("name", "title", "description", "inputSchema", "annotations")


# A kubeconfig with one context on a loopback port nothing listens on: Kubernetes servers
# refuse to start without a current context, and list their tools without reaching it.
KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://127.0.0.1:9"}
  name: corpus
contexts:
- context: {cluster: corpus, user: corpus}
  name: corpus
current-context: corpus
users:
- name: corpus
  user: {token: dummy-not-a-token}
"""


def list_tools(cmd):
    home = tempfile.mkdtemp(prefix="scout-corpus-")
    os.makedirs(os.path.join(home, ".kube"))
    with open(os.path.join(home, ".kube", "config"), "w") as f:
        f.write(KUBECONFIG)
    wire = Wire(cmd, home)
    try:
        wire.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "scout-corpus", "version": "1"}})
        wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools, cursor = [], None
        for _ in range(50):
            result = wire.request("tools/list", {"cursor": cursor} if cursor else {})
            tools.extend({k: t[k] for k in KEPT if k in t} for t in result.get("tools", []))
            cursor = result.get("nextCursor")
            if not cursor:
                break
        return tools
    finally:
        wire.close()
        shutil.rmtree(home, ignore_errors=True)


def main():
    install, out = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    split = rest.index("--") if "--" in rest else len(rest)
    npm, pypi = rest[:split], rest[split + 1:]
    servers = []
    scratch = tempfile.mkdtemp(prefix="scout-corpus-data-")
    jobs = [(npm_command, s) for s in npm] + [(pypi_command, s) for s in pypi]
    for make, spec in jobs:
        try:
            name, version, cmd = make(install, spec, scratch)
            tools = list_tools(cmd)
        except Exception as e:  # noqa: BLE001 — one server's failure leaves the rest
            print(f"dump_tools: {spec}: left out ({e})", file=sys.stderr)
            continue
        print(f"dump_tools: {name} {version}: {len(tools)} tools", file=sys.stderr)
        servers.append({"server": name, "version": version, "tools": tools})
    shutil.rmtree(scratch, ignore_errors=True)
    servers.sort(key=lambda s: s["server"])
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump({"about": "tools/list of real MCP servers, gathered by "
                            "scripts/gather-descriptions.sh", "servers": servers},
                  f, indent=1, ensure_ascii=False, sort_keys=True)
        f.write("\n")
    total = sum(len(s["tools"]) for s in servers)
    print(f"dump_tools: {total} tools from {len(servers)} servers -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
