"""Other agents' session formats → goosectx sessions (``goosectx sessions import``)."""
