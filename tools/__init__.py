"""Gavel's judge engine and tool implementations: plain async functions over pydantic models.

Nothing in this package imports `mcp`; the MCP wiring lives in `gavel.server`.
"""
