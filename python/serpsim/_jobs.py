"""Running long library calls: progress display and Ctrl-C.

A long call returns a job running on a Rust thread without the GIL. ``run`` polls it, shows a
progress bar once the call has taken longer than half a second (tqdm when installed, which
also renders in notebooks; otherwise a line on stderr), and turns Ctrl-C into a cancellation.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Optional

_enabled = True


def set_progress(enabled: bool) -> None:
    """Turns progress bars on or off for every later call (default: on)."""
    global _enabled
    _enabled = bool(enabled)


def line_text(label: str, unit: str, done: int, total: Optional[int], message: str, elapsed: float) -> str:
    """The progress line: counts once there are any (or a total), else the time so far, so a
    call still preparing shows ``label: 3 s`` rather than a repeated ``0 units``. Counts have
    their thousands grouped (``12,000/40,000 sessions``) and never pass the total."""
    if total:
        done = min(done, total)
        text = f"{label}: {done:,}/{total:,} {unit} ({100.0 * done / total:.0f} %)"
    elif done:
        text = f"{label}: {done:,} {unit}"
    else:
        text = f"{label}: {elapsed:.0f} s"
    if message:
        text += f"; {message}"
    return text


class _Line:
    """A minimal bar on stderr for when tqdm is not installed."""

    def __init__(self) -> None:
        self.last = 0.0
        self.text = ""

    def update(self, label: str, unit: str, done: int, total: Optional[int], message: str, elapsed: float) -> None:
        now = time.monotonic()
        if now - self.last < 0.5:
            return
        self.last = now
        text = line_text(label, unit, done, total, message, elapsed)
        if text == self.text:
            return
        self.text = text
        sys.stderr.write("\r" + text[:120].ljust(120))
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\r" + " " * 120 + "\r")
        sys.stderr.flush()


class _Tqdm:
    def __init__(self, tqdm_cls: Any) -> None:
        self.cls = tqdm_cls
        self.bar = None
        self.label = None

    def update(self, label: str, unit: str, done: int, total: Optional[int], message: str, elapsed: float) -> None:
        if self.bar is None or label != self.label:
            if self.bar is not None:
                self.bar.close()
            self.bar = self.cls(total=total, desc=label, unit=f" {unit}" if unit else "it", leave=False)
            self.label = label
        if total is not None and self.bar.total != total:
            self.bar.total = total
        self.bar.n = min(done, total) if total is not None else done
        if message:
            self.bar.set_postfix_str(message, refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _display() -> Any:
    try:
        from tqdm.auto import tqdm  # type: ignore
    except Exception:  # tqdm is optional
        return _Line()
    return _Tqdm(tqdm)


def run(job: Any, progress: Optional[bool] = None) -> Any:
    """Waits for ``job`` and returns its result; shows progress; Ctrl-C cancels it."""
    show = _enabled if progress is None else bool(progress)
    start = time.monotonic()
    bar = None
    wait = 0.01
    try:
        # Wait on the job without the GIL in short slices, so that Ctrl-C is seen between them.
        while not job.wait(wait):
            wait = min(wait * 2, 0.1)
            if show and time.monotonic() - start > 0.5:
                if bar is None:
                    bar = _display()
                bar.update(*job.poll())
        return job.result()
    except KeyboardInterrupt:
        job.cancel()
        # Give the work a moment to stop at its next check, then re-raise.
        deadline = time.monotonic() + 5.0
        while not job.done() and time.monotonic() < deadline:
            time.sleep(0.02)
        raise
    finally:
        if bar is not None:
            bar.close()
