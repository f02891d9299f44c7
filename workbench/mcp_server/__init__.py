"""The MCP stdio server over the workbench core."""
