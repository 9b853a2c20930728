"""Allow ``python -m goosectx``."""

from goosectx.cli.app import main

main()
