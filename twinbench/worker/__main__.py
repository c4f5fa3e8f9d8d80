"""`python -m twinbench.worker RUN_DIR`: the measured process (twinbench/worker/main.py)."""

import sys

from twinbench.worker.main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv))
