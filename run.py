"""twinbench entry point from a checkout: `python run.py backend=torch model=mlp cpus=2` (add -m
to sweep). The same as the installed `twinbench run ...`; the Hydra app is twinbench/cli/run.py."""

from twinbench.cli.run import main_from_command_line

if __name__ == "__main__":
    main_from_command_line()
