"""Gavel's MCP wiring: the server, its transports, the boundary to the tools, and the `gavel` command.

Importing this package has no side effects; settings are read in `gavel.server.cli.main`.
"""
