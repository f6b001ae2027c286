"""`python -m lobsterlang` runs the `lobster` command."""

import sys

from lobsterlang.cli import main

sys.exit(main())
