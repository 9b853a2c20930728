"""goosectx: a terminal chat agent that keeps long tasks inside a finite context window."""

import logging

__version__ = "0.1.0"

# A library's loggers print nothing unless configured: without --debug, records (a raising
# tool's traceback) would otherwise reach stderr through logging's last-resort handler.
logging.getLogger("goosectx").addHandler(logging.NullHandler())
