"""An installed copy carries every package of the checkout: pyproject.toml lists each folder that
holds an __init__.py under the project's top-level packages (setuptools takes only those listed,
so a package split out of a module and left off the list would be missing from an install)."""

from __future__ import annotations

import tomllib

from twinbench.paths import REPO_ROOT

# the checkout's own folders that pyproject.toml installs (conf/ travels as twinbench.conf)
TOP_LEVEL = ("twinbench", "frameworks", "models", "benchdata", "analysis", "hydra_plugins")


def listed() -> set[str]:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    return set(pyproject["tool"]["setuptools"]["packages"])


def packages_on_disk() -> set[str]:
    found = set()
    for top in TOP_LEVEL:
        for init in (REPO_ROOT / top).rglob("__init__.py"):
            folder = init.parent.relative_to(REPO_ROOT)
            if "__pycache__" not in folder.parts:
                found.add(".".join(folder.parts))
    return found


def test_every_package_in_the_checkout_is_installed():
    assert packages_on_disk() - listed() == set()


def test_the_check_sees_the_split_packages():
    assert {"analysis.compute.scaling", "analysis.render.sections"} <= packages_on_disk()
