"""The first screen of a deciding sweep (README command 1): what a newcomer reads.

By default (`verbose: false`, conf/config.yaml) a sweep that decides pair by pair shows

    the plan (one line, from twinbench/launch/planner.py) and how it decides (one line),
    one live progress line (redrawn in place on a terminal; a line a minute in a log or pipe),
    per core count: the outcome, the ratio and its interval, the pairs and the design,
    the hardware effect: 1 core to all cores, per backend, with its interval,
    the equivalence certificate's status, and the report's path,

at most MAX_LINES lines in all. Every run's own lines (phases, epochs, its summary block) and
the side-by-side tables go behind `verbose=true`; each run's result.json, `python -m analysis
<sweep folder>` and report.html keep them. No line names a faster side for a core count its
decision left undecided, except in the decision's own careful wording ("show X faster by at
least N% (less than the margin)", twinbench/sequential.py), which reads the interval's end that
excludes 1.

Everything that is drawn is made by the functions here from data (decisions.json's body, result
records, certificate statuses), so tests/test_first_screen.py holds the screen to its length and
to its wording without running a framework. It lives in the launcher's package because it reads
the decision engine (twinbench.sequential), the intervals (twinbench.stats) and the registry's
reference backend; it imports no framework and no Hydra.
"""

from __future__ import annotations

import math
import re
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

from frameworks import registry
from twinbench.launch import rerun
from twinbench.launch.hardware_effect import hardware_lines
from twinbench.sequential import DESIGN_NAMES, Decision
from twinbench.ui.cores import cores_label
from twinbench.ui.progress import duration

MAX_LINES = 40  # the first screen's length, progress line and a few warnings included
NON_TTY_EVERY_S = 60.0  # off a terminal the progress line is printed at most this often
# Loggers whose lines leave the console on the first screen (they stay in the log files): the
# runs' own lines, the sweep's job i/N, a job's summary block, the certificate's stages (the
# progress line says "parity: certifying"), Hydra's launcher's job list.
SCREEN_QUIET_LOGGERS = (
    "twinbench.worker",
    "twinbench.sweep",
    "twinbench.run",
    "twinbench.parity",
    "hydra._internal.core_plugins.basic_launcher",
)
# How each pairing (twinbench/sequential.py `pairing`) is named on the screen, and what its
# verdicts cannot see, short enough for a verdict's second line.
DESIGNS = DESIGN_NAMES
UNSEEN = {
    "turns": "start-up in each run's record, not compared",
    "sequential": "start-up in each run's record, not compared",
    "resident": "start-up and import not seen",
}
MEASURES = {"wall": "wall time of a steady step", "cpu": "training CPU time"}
# Words that name a side as the faster one: on the first screen only with a decision.
DIRECTION = re.compile(r"\b(faster|slower|quicker|wins?|beats?)\b", re.IGNORECASE)
CAREFUL = "(less than the margin)"  # the undecided decision's wording of what it shows


def screen_only(config: Any) -> bool:
    """Whether this sweep shows the first screen: it decides pair by pair and is not verbose."""
    from omegaconf import OmegaConf

    deciding = bool(OmegaConf.select(config, "hydra.sweeper.decide", default=False))
    return deciding and not bool(OmegaConf.select(config, "verbose", default=False))


def design_name(pairing: str | None) -> str:
    return DESIGNS.get(pairing or "sequential", f"{pairing} pairs")


def design_line(design: dict[str, Any], most_pairs: int) -> str:
    """How the sweep decides, in one line (printed under the plan)."""
    own = "" if design.get("max_seconds") is None else f" or {design['max_seconds']:g} s"
    shared = (
        "" if design.get("total_seconds") is None else f", {design['total_seconds']:g} s in all"
    )
    pairing = design.get("pairing", "sequential")
    how = design_name(pairing)
    if pairing == "turns":
        how += f" of {design.get('turn_ticks')} steps"
    if pairing == "resident":
        how += (
            f" of {design.get('turn_ticks')} steps, {design.get('resident_blocks')} blocks a "
            "worker pair, then fresh workers (a worker pair is one unit)"
        )
    return (
        f"decide: up to {most_pairs} pairs{own} per core count{shared}, each stopping once "
        f"{design['measure']} time decides at +-{design['margin']:.0%} "
        f"({1 - design['alpha']:.0%} confidence sequence); design: {how}"
    )


def progress_text(
    series: Sequence[Any],
    all_cores: int | None,
    spent_s: float,
    pool_s: float | None,
    running: str | None = None,
) -> str:
    """The live progress line from the sweep's series (twinbench.launch.decide.Series): where
    each core count stands, and the seconds of pairs spent (of the shared budget)."""
    parts = []
    for s in series:
        ratios = s.ratios[s.design.measure]
        pairs = len(ratios) + s.incomplete
        name = cores_label(s.label, all_cores)
        if s.done:
            outcome = s.decision.outcome if s.decision is not None else "undecided"
            parts.append(f"{name} {'undecided' if outcome == 'undecided' else 'decided'}")
        elif pairs:  # the latest ratio, or none where every pair so far lost a half
            latest = f"{ratios[-1]:.3f}" if ratios else "none complete"
            parts.append(f"{name} {pairs} pair{'s' if pairs != 1 else ''} ({latest})")
        else:
            parts.append(f"{name} waiting")
    budget = f"{duration(spent_s)}" + (f" of {duration(pool_s)}" if pool_s else "") + " spent"
    head = f"measuring: {running}; " if running else "measuring: "
    return head + ", ".join(parts) + f"; {budget}"


def _fmt_ratio(value: float) -> str:
    return f"{value:.3f}"


def verdict_lines(
    body: dict[str, Any], all_cores: int | None, given: Sequence[str] | None = None
) -> list[str]:
    """Per core count of decisions.json's body: the outcome (one line), then the ratio, its
    interval, the pairs and the design (a second line); for an undecided one whose pairs
    project a budget, given the user's overrides (`given`), the command that would decide it (a
    third line)."""
    d = {"pairing": "sequential", **body["design"]}
    series = body["series"]
    names = [s.get("a") for s in series if s.get("a")] + [s.get("b") for s in series if s.get("b")]
    a = next((s["a"] for s in series if s.get("a")), "A")
    b = next((s["b"] for s in series if s.get("b")), "B")
    measure = MEASURES.get(d["measure"], f"{d['measure']} time")
    # Sides named by a setting (one backend at two values, decide_sweep.side_names) compare it.
    effect = "framework" if {a, b} <= {*registry.names(), "A", "B"} else "setting"
    lines = [
        f"{effect}: {a} / {b}, {measure} (below 1: {a} takes less time); margin "
        f"+-{d['margin']:.0%}, {1 - d['alpha']:.0%} confidence sequence"
        if names
        else "framework: no pair completed"
    ]
    labels = [cores_label(s["series"], all_cores) for s in series]
    width = max((len(x) for x in labels), default=0)
    pad = " " * (width + 4)
    for s, label in zip(series, labels, strict=True):
        head = f"  {label:<{width}}  "
        if s.get("decision") is None:
            failed = s.get("failed_in_a_row", 0) >= d.get("max_failed_in_a_row", math.inf)
            stopped = "; stopped by pairs that failed in a row" if failed else ""
            lines.append(f"{head}no complete pair ({s.get('incomplete', 0)} incomplete{stopped})")
            continue
        decision = Decision(**s["decision"])
        sa, sb = s.get("a") or a, s.get("b") or b
        lines.append(head + decision.verdict(sa, sb))
        if 0 < decision.ratio_low <= decision.ratio_high < math.inf:
            numbers = (
                f"{_fmt_ratio(decision.ratio)} [{_fmt_ratio(decision.ratio_low)}, "
                f"{_fmt_ratio(decision.ratio_high)}]"
            )
        else:
            numbers = f"{_fmt_ratio(decision.ratio)} (no interval yet)"
        unseen = UNSEEN.get(d["pairing"])
        pairs = ("worker pair" if d["pairing"] == "resident" else "pair") + "s" * (
            decision.pairs != 1
        )
        detail = f"{numbers}, {decision.pairs} {pairs}, {design_name(d['pairing'])}"
        detail += f" ({unseen})" if unseen else ""
        if s.get("incomplete"):
            detail += f"; {s['incomplete']} pair(s) with a failed half left out"
        lines.append(pad + detail)
        again = None if given is None else rerun.rerun_line(s, decision, d, given, all_cores)
        if again is not None and decision.outcome == "undecided":
            lines.append(pad + again)
    return lines


def certificate_line(statuses: dict[str, dict[str, Any]]) -> list[str]:
    """The equivalence certificate of each model (twinbench.parity.certificates.status)."""
    lines = []
    for model, s in statuses.items():
        state = s.get("status", "not checked")
        text = f"certificate: {model}: {state}"
        if s.get("checked"):
            text += f" (checked {str(s['checked'])[:10]})"
        if state == "pass":
            text += ": both sides are the same network"
        elif s.get("command"):
            text += f"; {s['command']}"
        lines.append(text)
    return lines


def end_lines(
    body: dict[str, Any] | None,
    records: Iterable[dict[str, Any]],
    certificates: dict[str, dict[str, Any]],
    all_cores: int | None,
    given: Sequence[str] | None = None,
    over_sweeps: Sequence[str] = (),
) -> list[str]:
    """What the first screen prints once the pairs are done, before the report's path
    (`given`: the user's overrides, for the command that would decide an undecided count;
    `over_sweeps`: the machine's hardware effect over its sweeps, twinbench/cli/machine_hardware.py,
    shown under this sweep's)."""
    lines: list[str] = []
    resident = body is not None and body["design"].get("pairing") == "resident"
    if body is not None:
        lines += verdict_lines(body, all_cores, given)
    hardware = hardware_lines(records, all_cores, "resident workers" if resident else "runs")
    lines += hardware + (list(over_sweeps) if hardware else [])
    lines += certificate_line(certificates)
    return lines


FOOTER = (
    "more: verbose=true shows every run; python -m analysis <sweep folder> the tables, and "
    "over several sweep folders each sweep one value"
)


def direction_problems(screen: str, decided: Iterable[str]) -> list[str]:
    """Lines of a screen that name a faster side without a decision behind them: a direction
    word on a line that neither names a decided core count (`decided`: their labels as the
    screen prints them) nor uses the undecided decision's careful wording. Empty: none."""
    decided = [d for d in decided if d]
    bad = []
    for line in screen.splitlines():
        if not DIRECTION.search(line):
            continue
        if CAREFUL in line and "at least" in line:
            continue
        if any(re.match(rf"\s*{re.escape(d)}\s", line) for d in decided):
            continue
        bad.append(line)
    return bad


class LiveLine:
    """One progress line: redrawn in place on a terminal; elsewhere printed when it first
    appears and then at most every `every_s` seconds (or when told to)."""

    def __init__(
        self,
        out: TextIO | None = None,
        every_s: float = NON_TTY_EVERY_S,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out = out or sys.stdout
        self.tty = bool(getattr(self.out, "isatty", lambda: False)())
        self.every_s, self.now = every_s, now
        self._last_s: float | None = None
        self._shown = ""

    def _width(self) -> int:
        import shutil

        return max(20, shutil.get_terminal_size().columns - 1)

    def show(self, text: str, force: bool = False) -> None:
        if self.tty:
            self.out.write("\r\x1b[K" + text[: self._width()])
            self.out.flush()
            self._shown = text
            return
        now = self.now()
        if force or self._last_s is None or now - self._last_s >= self.every_s:
            print(text, file=self.out, flush=True)
            self._last_s = now

    def say(self, text: str) -> None:
        """A line that stays; the progress line is drawn again below it on a terminal."""
        if self.tty:
            self.out.write("\r\x1b[K")
            print(text, file=self.out, flush=True)
            if self._shown:
                self.show(self._shown)
        else:
            print(text, file=self.out, flush=True)

    def clear(self) -> None:
        if self.tty and self._shown:
            self.out.write("\r\x1b[K")
            self.out.flush()
        self._shown = ""


current: LiveLine | None = None  # the sweep's progress line while a first screen is shown


def read_body(path: Path) -> dict[str, Any] | None:
    import json

    return json.loads(path.read_text()) if path.is_file() else None
