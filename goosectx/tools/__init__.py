"""Built-in tools and their registry."""
