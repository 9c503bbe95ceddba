"""Progress of the requests of a run: a bar on a terminal, plain lines anywhere else (a log, a CI
job, a notebook), so a slow or stuck run is never silent. A run that ends within
:data:`PROGRESS_EVERY` seconds prints no line; a longer one prints one every
:data:`PROGRESS_EVERY` seconds and at each further tenth of its requests."""

from __future__ import annotations

import sys
import time
from typing import Callable, Optional

#: Seconds between plain progress lines (and before the first).
PROGRESS_EVERY = 10.0


class Progress:
    def __init__(self, total: int, label: str, enabled: bool, unit: str = "request",
                 status: Optional[Callable[[], str]] = None) -> None:
        from ...core.records import visible

        self.total, self.label, self.unit, self.status = total, visible(label), unit, status
        self.done = 0
        self.note = ""
        self._bar = None
        self._plain = False
        if enabled and total:
            if sys.stderr.isatty():
                from tqdm import tqdm

                self._bar = tqdm(total=total, unit=unit, desc=label, file=sys.stderr, leave=False)
            else:
                self._plain = True
        self._start = self._last = time.monotonic()
        self._tenth = 0

    def update(self, n: int = 1) -> None:
        self.set(self.done + n)

    def set(self, done: int, note: str = "") -> None:
        if self._bar is not None:
            self._bar.update(done - self.done)
            if note:
                self._bar.set_postfix_str(note, refresh=False)
        self.done, self.note = done, note or self.note
        self.tick()

    def tick(self) -> None:
        """Print a plain line when one is due (called often, from the waiting loop)."""
        if not self._plain:
            return
        now = time.monotonic()
        tenth = self.done * 10 // self.total
        if now - self._start < PROGRESS_EVERY or (now - self._last < PROGRESS_EVERY and tenth <= self._tenth):
            return
        self._last, self._tenth = now, tenth
        extra = self.status() if self.status else ""
        note = f"; {self.note}" if self.note else ""
        print(f"groundlab: {self.label}: {self.done:,} of {self.total:,} {self.unit}s done "
              f"({100 * self.done // self.total}%) after {now - self._start:.0f} s{extra}{note}",
              file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
