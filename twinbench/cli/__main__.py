"""`python -m twinbench.cli`: the installed `twinbench` command, for a checkout without it
installed (it was "a package and cannot be directly executed", issue 45)."""

import sys

from twinbench.cli.main import main

sys.exit(main())
