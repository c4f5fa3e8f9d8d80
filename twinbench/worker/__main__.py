"""`python -m twinbench.worker RUN_DIR`: the measured process (twinbench/worker/main.py)."""

import sys

from twinbench.launch.lifeline import leave_without_teardown
from twinbench.worker.main import main

if __name__ == "__main__":
    leave_without_teardown(main(sys.argv))  # the record is written: skip the framework's teardown
