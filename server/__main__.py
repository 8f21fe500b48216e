"""`python -m gavel.server` is the `gavel` command."""

from gavel.server.cli import main

raise SystemExit(main())
