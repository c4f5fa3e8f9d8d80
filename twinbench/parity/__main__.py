"""`python -m twinbench.parity <model> ...`: the equivalence certificate's command line."""

import sys

from twinbench.launch.lifeline import leave_without_teardown
from twinbench.parity.cli import main

if __name__ == "__main__":
    leave_without_teardown(main(sys.argv[1:]))  # its files are written: skip the teardown
