"""Hydra callbacks: what happens once a whole sweep has ended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig


class SweepSummary(Callback):
    """Prints the side-by-side table of the sweep and exits non-zero if any run failed."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        from twinbench import planner, slurm

        for line in (slurm.prepare(config), planner.announce(config)):
            if line:
                print(line, flush=True)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        from analysis.report import after_sweep
        from analysis.table import comparison_table, failures, load_results

        records = load_results([Path(config.hydra.sweep.dir)])
        print("\n" + comparison_table(records), flush=True)
        print(after_sweep(Path(config.hydra.sweep.dir)), flush=True)
        failed = failures(records)
        if failed:
            print(f"\n{len(failed)} of {len(records)} runs failed:")
            for path, record in failed:
                print(f"  {path.parent.name}: {record['error']}")
            raise SystemExit(1)
