"""A small MCP server on the Python SDK (PyPI `mcp` 2.3.0) for scout's integration tests.

The 2.x SDK speaks both eras: the handshake revisions through `initialize` and 2026-07-28
through the per-request `_meta` envelope and `server/discover`, on stdio and HTTP alike.

Usage:  python py_server.py stdio
        python py_server.py http PORT [--stateless] [--json]
            -> http://127.0.0.1:PORT/mcp (stateful with SSE responses by default;
               --stateless: no sessions, --json: JSON instead of SSE responses)

Tools: get_time, echo (read-only), add_note (mutating, not destructive), delete_note
(destructive); resource `notes://readme`; prompt `summarize_notes`. When SCOUT_TEST_CALL_LOG
names a file, every tool call appends one line with the tool's name to it, so a test can prove
which tools scout really called.
"""

import os
import sys
from datetime import datetime, timezone

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

NOTES: dict[str, str] = {}

READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)

server = MCPServer(
    name="scout-test-python-sdk",
    version="0.1.0",
    instructions="Test server for scout on the Python SDK.",
)


def log_call(name: str) -> None:
    path = os.environ.get("SCOUT_TEST_CALL_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(name + "\n")


@server.tool(title="Get time", description="Return the current time in UTC as an ISO 8601 string. Read-only.", annotations=READ_ONLY)
def get_time() -> str:
    log_call("get_time")
    return datetime.now(timezone.utc).isoformat()


@server.tool(title="Echo", description="Return the given message unchanged. Read-only.", annotations=READ_ONLY)
def echo(message: str) -> str:
    """message: the text to send back."""
    log_call("echo")
    return message


@server.tool(
    title="Add note",
    description="Store a note in memory and return its key. Changes state, deletes nothing.",
    annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False),
)
def add_note(text: str) -> str:
    log_call("add_note")
    key = f"n{len(NOTES) + 1}"
    NOTES[key] = text
    return key


@server.tool(
    title="Delete note",
    description="Delete the note with the given key. Destructive: the note is gone for good.",
    annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False),
)
def delete_note(key: str) -> str:
    log_call("delete_note")
    return f"deleted {key}" if NOTES.pop(key, None) is not None else f"no note {key}"


@server.resource("notes://readme", name="readme", title="About this server", description="What this test server offers.", mime_type="text/plain")
def readme() -> str:
    return "scout test server: tools get_time, echo, add_note, delete_note."


@server.prompt(title="Summarize notes", description="Ask the model to summarize the stored notes in a given style.")
def summarize_notes(style: str) -> str:
    return f"Summarize these notes in a {style} style: {', '.join(NOTES.values()) or '(none)'}"


def main(argv: list[str]) -> int:
    if argv[:1] == ["stdio"]:
        server.run("stdio")
        return 0
    if len(argv) >= 2 and argv[0] == "http" and argv[1].isdigit():
        server.run(
            "streamable-http",
            host="127.0.0.1",
            port=int(argv[1]),
            stateless_http="--stateless" in argv[2:],
            json_response="--json" in argv[2:],
        )
        return 0
    print("usage: py_server.py stdio | py_server.py http PORT [--stateless] [--json]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
