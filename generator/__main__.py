"""python -m generator: the same as the prescient command."""

from .cli import main

raise SystemExit(main())
