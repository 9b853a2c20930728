"""goosectx: a terminal chat agent that keeps long tasks inside a finite context window."""

__version__ = "0.1.0"
