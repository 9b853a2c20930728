"""MCP servers as tools: config, lifecycle, instructions, resources and prompts.

The only package that imports mcp, and only lazily (docs/architecture.md §7): importing
``goosectx.extensions`` or its ``config``, ``names``, ``offered``, ``model``, ``manager`` and
``tools`` modules loads no mcp code; the manager's background thread does, once started.
"""
