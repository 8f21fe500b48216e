"""`python -m gavel.server` is the `gavel` command."""

from gavel.server.cli.main import main

raise SystemExit(main())
