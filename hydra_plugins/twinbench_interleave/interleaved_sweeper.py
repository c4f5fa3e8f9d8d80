"""Hydra's basic sweeper, with each repeat its own job and frameworks interleaved.

The jobs are the basic sweeper's cartesian product; twinbench.launch.interleave orders them (and
why). With `decide: true` (conf/experiment/compare.yaml) the sweep runs pair by pair and stops
each series once it has decided or spent its budget (twinbench.launch.decide); `decision:` takes
overrides of conf/decision/default.yaml (e.g. +hydra.sweeper.decision.margin=0.1).
Hydra loads sweepers only from the `hydra_plugins` package, hence this module's place; select it
with `hydra/sweeper=interleaved` (twinbench's default) or go back with `hydra/sweeper=basic`.
"""

from __future__ import annotations

from typing import Any

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from omegaconf import OmegaConf


class InterleavedSweeper(BasicSweeper):
    def __init__(
        self,
        max_batch_size: int | None,
        params: dict[str, str] | None = None,
        decide: bool = False,
        decision: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(max_batch_size, params)
        self.decide = decide
        self.decision = dict(decision or {})

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        from twinbench.launch.compositions import compose_each_job_once

        # the sweeper, the plan, a deciding sweep and Hydra's launcher each compose every job
        compose_each_job_once(hydra_context.config_loader)
        super().setup(hydra_context=hydra_context, task_function=task_function, config=config)

    def split_arguments(self, overrides: list, max_batch_size: int | None) -> list[list[list[str]]]:  # type: ignore[override]
        from twinbench.launch.interleave import Job, interleave, splits_repeats

        if not splits_repeats(self.config):  # a parallel launcher: Hydra's plain product
            return BasicSweeper.split_arguments(overrides, max_batch_size)
        batches = BasicSweeper.split_arguments(overrides, None)
        jobs = [Job(tuple(o), self._repeats(o)) for o in (batches[0] if batches else [])]
        ordered = interleave(jobs)
        if self.decide:  # one pair a batch, so the sweep can look after every pair
            from twinbench.launch.decide_sweep import pair_batches

            return pair_batches(ordered) or [[]]
        return list(BasicSweeper.split_overrides_to_chunks(ordered, max_batch_size)) or [[]]

    def sweep(self, arguments: list[str]) -> Any:
        from twinbench.launch import lifeline
        from twinbench.launch.interleave import splits_repeats

        assert self.config is not None
        lifeline.sweep_dir = str(self.config.hydra.sweep.dir)  # said if the sweep is stopped
        if not (self.decide and splits_repeats(self.config)):
            return super().sweep(arguments)
        from twinbench.launch.decide_sweep import run_deciding

        return run_deciding(self, arguments)

    def _repeats(self, overrides: list[str]) -> int | None:
        """The job's `repeats` as its composed config has it (an experiment may set it)."""
        assert self.hydra_context is not None and self.config is not None
        job = self.hydra_context.config_loader.load_sweep_config(self.config, list(overrides))
        value = OmegaConf.select(job, "repeats")
        if value == "auto":
            return None
        # A bad value fails in its own job, as one line (launch.run_job); here it runs once.
        return value if isinstance(value, int) and value >= 1 else 1
