"""The Hydra app behind `python run.py ...` and `twinbench run ...` (add -m to sweep).

Thin on purpose: Hydra composes conf/, twinbench.launch runs each job in fresh workers.
This process never imports torch or tensorflow. The module is named `run` because Hydra names a
job's log file after the file that holds @hydra.main: each run keeps its run.log.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.errors import ConfigCompositionException
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from twinbench.config import checks as cli
from twinbench.launch import lifeline, repeats, screen, slurm
from twinbench.launch import runner as launch
from twinbench.paths import CONF_DIR
from twinbench.ui import progress

log = logging.getLogger("twinbench.run")


# An absolute path: conf/ is beside the packages in a checkout, inside twinbench/ when installed.
@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def main(cfg: DictConfig) -> str:
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    if progress.screen_quiet:  # a job of a deciding sweep's first screen (launch/screen.py)
        progress.quiet_console(screen.SCREEN_QUIET_LOGGERS)
    elif cfg.get("quiet"):
        progress.quiet_console()
    try:
        records = launch.run_job(OmegaConf.to_container(cfg, resolve=True), run_dir)
    except OSError as exc:  # disk full or unwritable: one line; finished runs stay as they are
        cli.fail(cli.describe_os_error(exc), code=1)
    single_run = HydraConfig.get().mode == RunMode.RUN
    for record in records:
        if record["status"] == "ok":
            progress.emit(launch.summary(record), log)
        elif not (single_run and len(records) == 1):  # a lone failure is the error line below
            print(launch.summary(record), file=sys.stderr, flush=True)
    if len(records) > 1:
        progress.emit(launch.repeats_summary(repeats.summarize_repeats(records)), log)
    failed = [r for r in records if r["status"] != "ok"]
    if failed and single_run:
        # A single run fails loudly; in a sweep the job is recorded and the sweep goes on.
        config_error = failed[0].get("error_kind") == "config"
        cli.fail(failed[0]["error"], code=2 if config_error else 1)
    return "failed" if failed else "ok"


def main_from_command_line() -> None:
    lifeline.stop_on_signals()
    # run.log sits in the run directory: on a full disk its handler fails on every line, and
    # logging would print a traceback for each. The failure itself is reported once, below.
    logging.raiseExceptions = False
    # Hydra would print its own report of an exception and exit 1; let it reach the handlers
    # here instead, which say it in one line.
    os.environ.setdefault("HYDRA_FULL_ERROR", "1")
    try:
        cli.check_overrides(sys.argv[1:])
        main()
    except lifeline.Interrupted as exc:
        sys.exit(lifeline.report_interrupted(exc))
    except ConfigCompositionException as exc:  # before OSError: a missing option is an IOError
        cli.fail(cli.describe_hydra_error(exc))
    except OSError as exc:  # disk full, read-only or vanished output directory
        cli.fail(cli.describe_os_error(exc), code=1)
    except Exception as exc:  # a Slurm job killed outright: one line, not submitit's traceback
        line = slurm.lost_job(exc)
        if line is None:
            raise
        cli.fail(line, code=1)


if __name__ == "__main__":
    main_from_command_line()
