"""The tests' fake clock for schedules: the time is read from a file, in this process or in a `lobster worker`.

`python tests/schedule_clock.py CLOCK_FILE worker` is a real `lobster worker` whose scheduler (and
every `schedule` command) reads "now" from CLOCK_FILE instead of the database's clock.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Any


class FileClock:
    """`database_now` replaced: the ISO time written in `path`."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def set(self, moment: datetime) -> None:
        temp = self.path.with_suffix(".new")
        temp.write_text(moment.isoformat())
        temp.replace(self.path)

    def __call__(self, conn: Any = None) -> datetime:
        return datetime.fromisoformat(self.path.read_text())


if __name__ == "__main__":
    from lobsterlang.cli import main
    from lobsterlang.interpret.schedule import postgres

    postgres.database_now = FileClock(Path(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
