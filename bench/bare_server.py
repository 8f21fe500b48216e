"""The SDK's own floor for bench.overhead's start-up: a bare MCPServer with one tool, served over stdio.

Timed beside `gavel serve` by the same client, so Gavel's share of its start-up is the difference.
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("bare")


@server.tool()
def echo(text: str) -> str:
    """Send the text back."""
    return text


if __name__ == "__main__":
    server.run()
