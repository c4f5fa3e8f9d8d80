"""`python -m twinbench.parity <model> ...`: the equivalence certificate's command line."""

import sys

from twinbench.parity.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
