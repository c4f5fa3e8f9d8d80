"""Learning curves that agree: train one workload over several seeds in every backend (or those
--backends names) and test whether their final loss and accuracy come from the same distribution
(the reference backend against each other one, analysis/load/backends.py).

    twinbench curves mlp --seeds 3                 # full epochs, seeds 0..2
    twinbench curves mlp --seeds 2 --epochs 2 --max-steps 50 --out /tmp/curves

(`python -m twinbench.cli.curves ...` is the same command.) Every run goes through the normal path
(`twinbench run backend=... model=... seed=...`: a fresh worker process, the usual result.json),
one after the other, into OUT/<model>/<backend>/seed<s>, OUT being results/curves/ of the
checkout (of the working directory for an installed copy) unless --out says otherwise; finished
runs at the same length are reused. The verdict (analysis/compute/seed_curves.py `agreement`:
mean final values within BAND_SDS seed standard deviations, Welch's p beside it) is printed and
written to OUT/<model>/agreement.json; `twinbench report OUT` draws the seed bands in the report.
Exit status 0 when every compared metric agrees, 1 when one does not, 2 for bad input.
`python -m twinbench.cli.curves_table` runs this for every workload and tabulates the verdicts.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from analysis.compute import seed_curves
from frameworks import registry
from twinbench.config.checks import check_output_dir, check_run_options, fail
from twinbench.config.choices import ConfigError
from twinbench.config.spec import group_choices
from twinbench.launch import lifeline
from twinbench.paths import REPO_ROOT, WORK_ROOT
from twinbench.result import results

BACKENDS = tuple(registry.names())  # every backend, unless --backends names fewer
# results/ of the checkout, or of the working directory for an installed copy (twinbench.paths)
DEFAULT_OUT = WORK_ROOT / "results" / "curves"
PROG = "python -m twinbench.cli.curves"
SUMMARY = "learning curves over seeds: do the backends' final loss and accuracy agree?"


def run_dir(out: Path, model: str, backend: str, seed: int) -> Path:
    return out / model / backend / f"seed{seed}"


LENGTH_KEYS = ("epochs", "max_steps")  # a finished run is reused only at the length asked for


def same_length(record: dict, extra: list[str]) -> bool:
    """Whether a finished run trained as long as `extra` asks (a changed cap retrains)."""
    asked = dict(e.split("=", 1) for e in extra)
    done = record.get("config") or {}
    return all(
        (done.get(k) is None) if k not in asked else str(done.get(k)) == asked[k]
        for k in LENGTH_KEYS
    )


def train(out: Path, model: str, backend: str, seed: int, extra: list[str]) -> dict:
    """One run through run.py; its result.json (reused when it already finished at the same
    length)."""
    folder = run_dir(out, model, backend, seed)
    result = folder / results.RESULT_FILE
    done = results.read(result) if result.is_file() else {}
    if done.get("status") != "ok" or not same_length(done, extra):
        # The Hydra app run.py starts, as a module: an installed copy has no run.py. Its
        # packages are where this one's are (REPO_ROOT: the checkout, or site-packages).
        cmd = [sys.executable, "-m", "twinbench.cli.run", f"backend={backend}", f"model={model}"]
        cmd += [f"seed={seed}", *extra, f"hydra.run.dir={folder}"]
        print(f"  {backend} {model} seed {seed}: {' '.join(cmd[3:])}", flush=True)
        path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
        subprocess.run(cmd, env={**os.environ, "PYTHONPATH": path}, check=False)
    return results.read(result) if result.is_file() else {}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options, the same under `twinbench curves` and `python -m twinbench.cli.curves`."""
    parser.add_argument("model", choices=group_choices("model"))
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0..N-1 (at least 2)")
    parser.add_argument("--epochs", type=int, help="default: the model's full epochs")
    parser.add_argument("--max-steps", type=int, help="cap steps per epoch (a shortened check)")
    parser.add_argument("--cpus", type=int, help="cores per run (default: all allowed)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="default: results/curves/")
    parser.add_argument(
        "--backends",
        default=",".join(BACKENDS),
        help=f"comma-separated backends to train (default: all, {','.join(BACKENDS)})",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


def overrides(epochs: int | None, max_steps: int | None, cpus: int | None) -> list[str]:
    """The run.py overrides of one curves run: no peak probe (it times nothing here), the caps."""
    # `is not None`, not truthiness: `--cpus 0` must reach the checks, not vanish into "every core"
    extra = ["measure.peak_probe=false"]
    extra += [f"epochs={epochs}"] if epochs is not None else []
    extra += [f"max_steps={max_steps}"] if max_steps is not None else []
    extra += [f"cpus={cpus}"] if cpus is not None else []
    return extra


def check_runs(out: Path, model: str, chosen: list[str], extra: list[str]) -> None:
    """Refuse, as run.py would, any option that one of these runs could not take (one line,
    exit 2), before the first run trains. --out itself first: its runs' folders would be
    refused as a hydra.run.dir the user never wrote."""
    try:
        check_output_dir("--out", str(out))
    except ConfigError as exc:
        fail(str(exc))
    check_run_options(
        [
            [f"backend={b}", f"model={model}", *extra, f"hydra.run.dir={run_dir(out, model, b, 0)}"]
            for b in chosen
        ]
    )


def judge(
    out: Path, model: str, seeds: int, chosen: list[str], extra: list[str]
) -> dict[str, Any] | None:
    """Train every seed in every chosen backend (finished runs reused), judge, and write the
    verdict to OUT/<model>/agreement.json: the verdict, or None when a run did not finish."""
    histories: dict[str, dict[int, dict[str, list[float]]]] = {}
    for seed in range(seeds):
        for backend in chosen:
            record = train(out, model, backend, seed, extra)
            if record.get("status") != "ok":
                folder = run_dir(out, model, backend, seed)
                print(f"{backend} seed {seed} did not finish: see {folder}")
                return None
            histories.setdefault(backend, {})[seed] = record["history"]
    rows = seed_curves.agreement_rows({model: histories})
    verdict = {
        "model": model,
        "seeds": seeds,
        "overrides": extra,
        "test": f"|mean difference| <= max({seed_curves.BAND_SDS:g} x larger seed SD, "
        f"{seed_curves.REL_FLOOR:.0%} of the value); Welch's p reported",
        "metrics": rows,
        "histories": {b: {str(s): h for s, h in seeds.items()} for b, seeds in histories.items()},
    }
    results.write_atomic(agreement_path(out, model), verdict)
    return verdict


def agreement_path(out: Path, model: str) -> Path:
    return out / model / "agreement.json"


def agrees(verdict: dict[str, Any]) -> bool:
    """Every compared metric agrees (and there was one to compare)."""
    return bool(verdict["metrics"]) and all(r["agree"] for r in verdict["metrics"])


@lifeline.stops_on_signals(
    "twinbench curves", "finished runs are kept (re-run the same command to resume)"
)
def run(args: argparse.Namespace) -> int:
    """Train every seed in every chosen backend, then judge and write the verdict."""
    chosen = [b for b in args.backends.split(",") if b]
    unknown = [b for b in chosen if b not in BACKENDS]
    if unknown or len(chosen) < 2:
        fail(f"--backends needs two or more of {', '.join(BACKENDS)} (got {args.backends!r})")
    if args.seeds < 2:
        fail("--seeds must be at least 2: agreement is judged against the seed spread")
    extra = overrides(args.epochs, args.max_steps, args.cpus)
    check_runs(args.out, args.model, chosen, extra)
    verdict = judge(args.out, args.model, args.seeds, chosen, extra)
    if verdict is None:
        return 1
    for row in verdict["metrics"]:
        p = "n/a" if row["welch_p"] is None else f"{row['welch_p']:.2f}"
        print(
            f"{args.model} {row['metric']:<13} {row['frameworks']}: difference "
            f"{row['difference']:+.4g} within band {row['band']:.4g}? "
            f"{'AGREE' if row['agree'] else 'DIFFER'}  (Welch p {p})"
        )
    print(f"-> {agreement_path(args.out, args.model)}")
    return 0 if agrees(verdict) else 1


if __name__ == "__main__":
    sys.exit(main())
