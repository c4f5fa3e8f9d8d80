"""The curves table (issue 24): every workload on every backend over seeds, judged by `curves`
(twinbench/cli/curves.py), in one markdown table.

    python -m twinbench.cli.curves_table                       # the table, conf/curves/default.yaml
    python -m twinbench.cli.curves_table --models mlp --seeds 2 --epochs 2 --max-steps 5

Each workload trains at the length conf/curves/default.yaml gives it (a full run of every
workload does not fit a 2-core machine; the conf says why each cap is what it is), through
curves.judge: a fresh run.py process per backend and seed, into OUT/<model>/<backend>/seed<s>,
finished runs reused, so an interrupted table resumes where it stopped. Then one row per
workload and backend pair (the reference against each other backend): each side's final loss and
accuracy, mean ± sd over seeds (validation values where the workload validates), the agreement
band, the verdict over every compared metric, and the cap. Printed, and written to OUT/table.md.
--epochs / --max-steps override every workload's cap (a smoke run of the driver itself).
Exit status 0 when every workload agrees, 1 otherwise, 2 for bad input.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.compute import seed_curves
from analysis.load import backends as backend_pairs
from twinbench.cli import curves
from twinbench.config.checks import fail
from twinbench.config.spec import group_choices
from twinbench.launch import lifeline
from twinbench.paths import CONF_DIR

SETTINGS = CONF_DIR / "curves" / "default.yaml"
PROG = "python -m twinbench.cli.curves_table"
SUMMARY = "the curves table: every workload x backend over seeds, one agreement row per pair"
TABLE_FILE = "table.md"


@dataclass(frozen=True)
class Cap:
    """How long one workload trains in the table."""

    epochs: int
    max_steps: int | None  # None: the full epoch

    def label(self) -> str:
        steps = "full epochs" if self.max_steps is None else f"{self.max_steps} steps/epoch"
        return f"{self.epochs} ep x {steps}"


def settings() -> dict[str, Any]:
    """conf/curves/default.yaml as plain values."""
    from omegaconf import OmegaConf

    return OmegaConf.to_container(OmegaConf.load(SETTINGS), resolve=True)


def caps() -> dict[str, Cap]:
    """Each workload's length in the table."""
    return {
        model: Cap(int(c["epochs"]), None if c.get("max_steps") is None else int(c["max_steps"]))
        for model, c in settings()["workloads"].items()
    }


def _mean_sd(values: list[float]) -> str:
    if not values:
        return "n/a"
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.4g} ± {sd:.2g}"


def _shown(histories: dict[str, dict[str, dict]], kind: str) -> str:
    """The metric a row shows: validation's where the workload validates, else training's."""
    validated = any(seed_curves.finals(per_seed, "val_" + kind) for per_seed in histories.values())
    return "val_" + kind if validated else kind


def table_rows(verdict: dict[str, Any], cap: Cap) -> list[dict[str, Any]]:
    """One row per backend pair of one workload's verdict (curves.judge's agreement.json)."""
    histories = verdict["histories"]
    per_backend = {b: s for b, s in histories.items() if len(s) >= 2}
    reference = backend_pairs.choose_reference(per_backend, None) or ""
    pairing = backend_pairs.reference_and_others(per_backend, reference)
    if pairing is None:
        return []
    reference, others = pairing
    shown = {kind: _shown(per_backend, kind) for kind in ("loss", "accuracy")}
    rows = []
    for other in others:
        judged = [
            r for r in verdict["metrics"] if set(r["frameworks"].split(" - ")) == {reference, other}
        ]
        bands = {r["metric"]: r["band"] for r in judged}
        row: dict[str, Any] = {"model": verdict["model"], "reference": reference, "other": other}
        for kind, metric in shown.items():
            row[kind] = {
                "metric": metric,
                "reference": _mean_sd(seed_curves.finals(per_backend[reference], metric)),
                "other": _mean_sd(seed_curves.finals(per_backend[other], metric)),
                "band": bands.get(metric),
            }
        row["agree"] = bool(judged) and all(r["agree"] for r in judged)
        row["disagreeing"] = [r["metric"] for r in judged if not r["agree"]]
        row["cap"] = cap.label()
        rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]], seeds: int) -> str:
    """The table: loss and accuracy are validation values where the workload validates (val_)."""
    head = (
        "| workload | pair | loss (ref) | loss (other) | loss band | acc (ref) | acc (other) "
        "| acc band | verdict | cap |"
    )
    lines = [
        f"Final values, mean ± sd over {seeds} seeds; band = the largest |mean difference| "
        f"that agrees (max({seed_curves.BAND_SDS:g} x larger seed sd, "
        f"{seed_curves.REL_FLOOR:.0%} of the value)). The verdict covers training and validation "
        "loss and accuracy.",
        "",
        head,
        "|" + "---|" * head.count(" | ") + "---|",
    ]
    for r in rows:
        loss, acc = r["loss"], r["accuracy"]
        verdict = "agree" if r["agree"] else "disagree (" + ", ".join(r["disagreeing"]) + ")"

        def band(cell: dict[str, Any]) -> str:
            return "n/a" if cell["band"] is None else f"{cell['band']:.2g}"

        lines.append(
            f"| {r['model']} | {r['reference']} vs {r['other']} "
            f"| {loss['reference']} | {loss['other']} | {band(loss)} ({loss['metric']}) "
            f"| {acc['reference']} | {acc['other']} | {band(acc)} ({acc['metric']}) "
            f"| {verdict} | {r['cap']} |"
        )
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    conf = settings()
    parser.add_argument("--models", help="comma-separated workloads (default: every one)")
    parser.add_argument("--seeds", type=int, default=conf["seeds"], help="seeds 0..N-1")
    parser.add_argument("--cpus", type=int, default=conf["cpus"], help="cores per run")
    parser.add_argument("--epochs", type=int, help="override every workload's epochs (smoke)")
    parser.add_argument("--max-steps", type=int, help="override every workload's step cap")
    parser.add_argument("--out", type=Path, default=curves.DEFAULT_OUT, help="results/curves/")
    parser.add_argument(
        "--backends", default=",".join(curves.BACKENDS), help="comma-separated (default: all)"
    )


def _cap(cap: Cap, args: argparse.Namespace) -> Cap:
    """The workload's cap, or --epochs / --max-steps where given (0 included: it is refused by
    the run keys' checks, not read as "not given")."""
    return Cap(
        cap.epochs if args.epochs is None else args.epochs,
        cap.max_steps if args.max_steps is None else args.max_steps,
    )


@lifeline.stops_on_signals(
    "twinbench curves_table", "finished runs are kept (re-run the same command to resume)"
)
def run(args: argparse.Namespace) -> int:
    """Judge every chosen workload (training what is not yet trained), then write the table."""
    known, table_caps = group_choices("model"), caps()
    chosen = args.models.split(",") if args.models else known
    missing = [m for m in chosen if m not in known or m not in table_caps]
    if missing:
        usable = ", ".join(m for m in known if m in table_caps)
        fail(
            f"--models: {', '.join(missing)} is not a workload with a cap in "
            f"conf/curves/{SETTINGS.name} (comma-separated, from: {usable})"
        )
    backends = [b for b in args.backends.split(",") if b]
    unknown = [b for b in backends if b not in curves.BACKENDS]
    if unknown or len(backends) < 2:
        named = f"unknown backend {', '.join(unknown)}; " if unknown else ""
        fail(
            f"--backends: {named}name two or more of {', '.join(curves.BACKENDS)}, comma-separated"
        )
    if args.seeds < 2:
        fail("--seeds must be at least 2: agreement is judged against the seed spread")
    runs = {model: _cap(table_caps[model], args) for model in chosen}
    for model, cap in runs.items():  # every workload's options, before the first one trains
        extra = curves.overrides(cap.epochs, cap.max_steps, args.cpus)
        curves.check_runs(args.out, model, backends, extra)
    rows, unfinished = [], []
    for model, cap in runs.items():
        print(f"== {model}: {cap.label()}, {args.seeds} seeds", flush=True)
        extra = curves.overrides(cap.epochs, cap.max_steps, args.cpus)
        verdict = curves.judge(args.out, model, args.seeds, backends, extra)
        if verdict is None:
            unfinished.append(model)
        else:
            rows += table_rows(verdict, cap)
    text = markdown(rows, args.seeds)
    if unfinished:
        text += f"\nNot finished (a run failed): {', '.join(unfinished)}\n"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / TABLE_FILE).write_text(text)  # derived from agreement.json: rewritable any time
    print(text, end="")
    print(f"-> {args.out / TABLE_FILE}")
    return 0 if rows and not unfinished and all(r["agree"] for r in rows) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
