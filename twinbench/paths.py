"""Where things live: the checkout (or installed package), its conf/, and the results' root.

The bottom of twinbench's layers: it imports nothing of the project, so every package, models
and benchdata included, may ask it where conf/ is.
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# conf/ sits beside the packages in a checkout (and an editable install); `pip install .` ships
# it inside the package as twinbench/conf (pyproject.toml's package-dir mapping).
_CHECKOUT_CONF = REPO_ROOT / "conf"
INSTALLED = not _CHECKOUT_CONF.is_dir()
CONF_DIR = Path(__file__).resolve().parent / "conf" if INSTALLED else _CHECKOUT_CONF
# Where results/ lives: the checkout's, or, for an installed copy, the directory the user runs
# the command from (an installed package's own folder is no place for data).
WORK_ROOT = Path.cwd() if INSTALLED else REPO_ROOT
