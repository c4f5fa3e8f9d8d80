"""twinbench entry point: `python run.py backend=torch model=mlp cpus=2` (add -m to sweep).

Thin on purpose: Hydra composes conf/, twinbench.launch runs each job in a fresh worker.
This process never imports torch or tensorflow.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from twinbench import cli, launch


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> str:
    record = launch.run_job(
        OmegaConf.to_container(cfg, resolve=True), Path(HydraConfig.get().runtime.output_dir)
    )
    if record["status"] == "ok":
        print(launch.summary(record), flush=True)
    elif HydraConfig.get().mode == RunMode.RUN:
        # A single run fails loudly; in a sweep the job is recorded and the sweep goes on.
        cli.fail(record["error"], code=2 if record.get("error_kind") == "config" else 1)
    else:
        print(launch.summary(record), file=sys.stderr, flush=True)
    return record["status"]


if __name__ == "__main__":
    cli.check_overrides(sys.argv[1:])
    main()
