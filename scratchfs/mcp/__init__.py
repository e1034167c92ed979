"""The MCP faces: the scratchfs server (:mod:`scratchfs.mcp.server`) and the spilling proxy in front of any MCP
server (:mod:`scratchfs.mcp.proxy`), both on the official ``mcp`` SDK."""
