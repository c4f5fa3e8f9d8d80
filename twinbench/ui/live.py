"""What a terminal shows while a run works: rich progress bars, drawn in the parent process.

The worker only sends samples (twinbench/ui/progress.py); this module draws them. Nothing redraws
on a timer (no rich refresh thread): the view is redrawn when a sample or status line arrives,
and the worker sends a sample once a second, so the parent costs the machine one small redraw a
second while a run is timed. The bars are transient: an ordinary line (an epoch's result) erases
them, and the next sample draws them anew. `table_text` renders the summary tables.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
import time
from collections.abc import Iterable
from typing import Any, TextIO

from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    Task,
    TaskID,
    TextColumn,
)
from rich.table import Column, Table
from rich.text import Text

from twinbench.ui import progress
from twinbench.ui.progress import SweepState, duration, when

LOG_WIDTH = 160  # columns of a table written to a log or pipe: wide enough not to fold a value


class _StepCount(MofNCompleteColumn):
    """'25/100' for an epoch, megabytes for a download, nothing for a phase (no count)."""

    def render(self, task: Task) -> Text:
        if task.fields.get("unit") == "bytes":
            return DownloadColumn().render(task)  # '12.3/170.5 MB'
        return super().render(task) if task.total is not None else Text("")


class LiveView:
    """A sweep row (job i/N) where a sweep runs in this process, and the run's own row."""

    def __init__(self, out: TextIO, sweep: SweepState | None = None):
        console = Console(file=out)
        # A narrow terminal cuts the description, never the bar or the counts.
        one_line = Column(no_wrap=True, overflow="ellipsis", max_width=max(20, console.width - 50))
        self.progress = Progress(
            TextColumn("{task.description}", markup=False, table_column=one_line),
            BarColumn(bar_width=20),
            _StepCount(table_column=Column(no_wrap=True)),
            TextColumn("{task.fields[when]}", markup=False, table_column=Column(no_wrap=True)),
            console=console,
            auto_refresh=False,  # redraw on a sample only (see the module's docstring)
            transient=True,
            redirect_stdout=False,  # the parent's logging keeps writing where it writes
            redirect_stderr=False,
        )
        # The sweep's row first (above the run's), when a sweep runs in this process.
        self._sweep: TaskID | None = None
        if sweep is not None:
            self._sweep = self.progress.add_task(**self._sweep_fields(sweep))
        self._run = self.progress.add_task("", total=None, when="", unit="steps")
        self._started = False  # started on the first show: nothing empty is ever drawn

    @staticmethod
    def _sweep_fields(sweep: SweepState) -> dict[str, Any]:
        elapsed, done = time.time() - sweep.started_s, sweep.job - 1
        return {
            "description": f"sweep job {sweep.job}/{sweep.jobs or '?'}: {sweep.name}",
            "total": sweep.jobs,
            "completed": done,
            "when": when(elapsed, done, sweep.jobs) if sweep.jobs else duration(elapsed),
        }

    def show(self, text: str, sample: dict[str, Any] | None, sweep: SweepState | None) -> None:
        if sweep is not None and self._sweep is not None:
            self.progress.update(self._sweep, **self._sweep_fields(sweep))
        if sample is not None and "download" in sample:
            self.progress.update(
                self._run,
                description=f"[{sample['label']}] downloading {sample['download']}",
                total=sample["total"],
                completed=sample["done"],
                unit="bytes",
                when=(
                    when(sample["elapsed_s"], sample["done"], sample["total"])
                    if sample["total"]
                    else duration(sample["elapsed_s"])
                ),
            )
        elif sample is None:  # a phase (data, import, peak probe): no count to show
            # A new task: rich's update() cannot take a total away again.
            self.progress.remove_task(self._run)
            self._run = self.progress.add_task(text, total=None, when="", unit="steps")
        else:
            done, total = sample["done"], sample["total"]
            head = f"[{sample['label']}] epoch {sample['epoch']}/{sample['epochs']}"
            self.progress.update(
                self._run,
                description=head,
                total=total,
                completed=done,
                unit="steps",
                when=(
                    f"validating, {duration(sample['elapsed_s'])}"
                    if done >= total
                    else when(sample["elapsed_s"], done, total)
                ),
            )
        if not self._started:
            self._started = True
            self.progress.start()
        self.progress.refresh()  # once per sample: the worker sends one a second at most

    def close(self) -> None:
        self.progress.stop()  # transient: the bars are erased


def table_text(rows: list[tuple[str, str]], tty: bool, indent: str = "  ") -> str:
    """Label/value rows as a rich table, returned as text for logging (terminal and run.log).

    On a terminal the table has rules; in a log or pipe it is plain aligned columns. No colour
    either way: the same text lands in run.log. Long values fold inside their column rather
    than past the terminal's edge.
    """
    table = Table(show_header=False, box=box.SIMPLE if tty else None, pad_edge=False)
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")
    for label, value in rows:
        table.add_row(label, value)
    width = shutil.get_terminal_size().columns if tty else LOG_WIDTH
    buffer = io.StringIO()
    Console(file=buffer, width=width - len(indent), color_system=None, markup=False).print(table)
    lines = [line.rstrip() for line in buffer.getvalue().splitlines()]
    return "\n".join(indent + line for line in lines if line.strip())


class Relay:
    """Parent side: the worker's stdout lines to logging; status lines and epoch samples drawn
    by rich on a terminal, logged plainly (samples thinned) elsewhere."""

    def __init__(self, out: TextIO | None = None, quiet: bool = False):
        self.out = out or sys.stdout
        self.quiet = quiet
        self.tty = bool(getattr(self.out, "isatty", lambda: False)())
        self._view: Any = None  # LiveView while something is drawn
        self._last_sample_s = -float("inf")

    def _clear(self) -> None:
        if self._view is not None:
            view, self._view = self._view, None
            with contextlib.suppress(Exception):  # as in _show: the relay must go on
                view.close()

    def _show(self, text: str, sample: dict[str, Any] | None) -> None:
        if sample is None and (self.quiet or self.tty):
            progress.emit_to_files(
                text
            )  # not a console line, but a phase of the run belongs in run.log
        if self.quiet:
            return
        if self.tty:
            try:
                if self._view is None:
                    self._view = LiveView(self.out, progress.current_sweep)
                self._view.show(text, sample, progress.current_sweep)
                return
            except Exception:  # a drawing problem must not stop the relay (the pipe would fill)
                self._view, self.tty = None, False  # plain lines from here on
        if sample is None:
            progress.emit(text)  # a phase of the run: always worth a line
        elif time.monotonic() - self._last_sample_s >= progress.STATUS_EVERY_S:
            self._last_sample_s = time.monotonic()
            progress.emit(text)

    def line(self, raw: str) -> None:
        text = raw.rstrip("\n")
        if text.startswith(progress.SAMPLE_MARK):
            try:
                sample = json.loads(text[len(progress.SAMPLE_MARK) :])
                shown = progress.describe(sample)
            except (ValueError, KeyError, TypeError, ZeroDivisionError):
                # Never let a bad line stop the relay: the worker would block on a full pipe.
                self._clear()
                progress.emit(text)
                return
            self._show(shown, sample)
        elif text.startswith(progress.STATUS_MARK):
            self._show(text[len(progress.STATUS_MARK) :], None)
        else:
            self._clear()
            progress.emit(text)

    def run(self, lines: Iterable[str]) -> None:
        try:
            for raw in lines:
                self.line(raw)
        finally:
            self._clear()
