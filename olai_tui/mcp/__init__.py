"""The MCP face: the engines of the registry as tools for agents (`olai-tui mcp`, olai_tui/mcp/server.py)."""
