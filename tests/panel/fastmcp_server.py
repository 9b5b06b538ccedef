"""A tiny MCP server written on PyPI `fastmcp`, the way its README shows, for scout's real-server
panel: nothing here is tuned for scout. It runs over stdio and touches nothing outside itself.
"""

from fastmcp import FastMCP

mcp = FastMCP("panel-fastmcp")


@mcp.tool(annotations={"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False})
def add(a: int, b: int) -> int:
    """Add two integers and return the sum."""
    return a + b


@mcp.tool(annotations={"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False})
def word_count(text: str) -> dict:
    """Count the words and characters of a piece of text."""
    return {"words": len(text.split()), "characters": len(text)}


@mcp.resource("panel://greeting")
def greeting() -> str:
    """A fixed greeting."""
    return "Hello from the panel."


@mcp.prompt
def summarize(text: str) -> str:
    """Ask the model for a one-sentence summary of a text."""
    return f"Summarize in one sentence:\n\n{text}"


if __name__ == "__main__":
    mcp.run()
