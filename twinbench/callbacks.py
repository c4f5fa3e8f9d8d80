"""Hydra callbacks: what happens once a whole sweep has ended."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig


class SweepSummary(Callback):
    """Prints the side-by-side table of the sweep and exits non-zero if any run failed.

    Hydra turns an exception in a callback into a warning and exits 0, so every way this can go
    wrong ends here in one line and exit code 1: a sweep whose summary cannot be made is not a
    sweep known to have succeeded.
    """

    def __init__(self) -> None:
        self.failed_jobs = 0  # as the jobs returned them, where they ran in this process

    def on_job_end(self, config: DictConfig, job_return: Any, **kwargs: Any) -> None:
        from hydra.core.utils import JobStatus

        if job_return.status != JobStatus.COMPLETED or job_return.return_value != "ok":
            self.failed_jobs += 1

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        try:
            failed = self._summarize(Path(config.hydra.sweep.dir))
        except Exception as exc:  # reported as one line, never swallowed
            message = " ".join(f"{type(exc).__name__}: {exc}".splitlines())
            print(
                f"twinbench: error: the sweep summary could not be made: {message}",
                file=sys.stderr,
                flush=True,
            )
            raise SystemExit(1) from None
        if failed or self.failed_jobs:
            raise SystemExit(1)

    @staticmethod
    def _summarize(sweep_dir: Path) -> bool:
        from analysis.report import after_sweep
        from analysis.table import comparison_table, failures, load_results

        records = load_results([sweep_dir])
        print("\n" + comparison_table(records), flush=True)
        print(after_sweep(sweep_dir), flush=True)
        failed = failures(records)
        if failed:
            print(f"\n{len(failed)} of {len(records)} runs failed:")
            for path, record in failed:
                print(f"  {path.parent.name}: {record['error']}")
        return bool(failed)
