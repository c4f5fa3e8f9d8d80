"""The guides in docs/guides/ name real code: every repository path (`models/flops.py`,
`conf/backend/<name>.yaml`) and every dotted name of a project module or symbol
(`frameworks.registry.BackendSpec`, `python -m twinbench.parity`) written in inline code exists,
read from the source without importing it. A rename breaks this test, not the reader.

Their links stay inside docs/guides/, so the docs build in strict mode cannot break on them.
"""

from __future__ import annotations

import re

import pytest

from tests import guide_pages

PAGES = ("adding-a-workload.md", "adding-a-backend.md")
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES)
def test_every_path_and_symbol_a_guide_names_exists(page):
    text = (guide_pages.PAGES_DIR / page).read_text()
    assert guide_pages.named_paths(text), "the page names no path: is the checker still reading it?"
    assert guide_pages.named_symbols(text), "the page names no symbol"
    assert guide_pages.missing_names(text) == []


@pytest.mark.parametrize("page", PAGES)
def test_a_guide_links_only_to_guides_that_exist(page):
    text = (guide_pages.PAGES_DIR / page).read_text()
    for target in LINK.findall(guide_pages.split_fences(text)[1]):
        path = target.split("#")[0]
        assert "/" not in path and path.endswith(".md"), target
        assert (guide_pages.PAGES_DIR / path).is_file(), target


def test_a_renamed_path_or_symbol_is_reported_by_name():
    text = (
        "See `models/flops.py`, `models/no_such_file.py`, `conf/model/<name>.yaml`,\n"
        "`conf/nowhere/<name>.yaml`, `frameworks.registry.BackendSpec.certified_code`,\n"
        "`frameworks.registry.BackendSpec.no_such_field`, `frameworks.registry.GONE`,\n"
        "`frameworks.no_such_module.thing`, `models.flops.Product.train` and\n"
        "`python -m twinbench.parity mlp`, `python -m twinbench.no_such_tool`, `pyproject.toml`,\n"
        "`python -m analysis OUT` and `no_such_setup.cfg`.\n"
    )
    assert guide_pages.missing_names(text) == [
        "conf/nowhere/<name>.yaml",
        "models/no_such_file.py",
        "no_such_setup.cfg",
        "frameworks.no_such_module.thing",
        "frameworks.registry.BackendSpec.no_such_field",
        "frameworks.registry.GONE",
        "twinbench.no_such_tool",
    ]


def test_files_a_page_creates_count_as_present_and_code_blocks_are_not_prose():
    text = (
        "Add `models/new_one.py` (`models.new_one.torch_model`):\n\n"
        "```python\n# file: models/new_one.py\nOUTPUT = 'softmax'\n```\n\n"
        "```bash\nls `models/inside_a_block.py`\n```\n"
    )
    assert guide_pages.file_blocks(text) == {"models/new_one.py": "# file: models/new_one.py\n"
                                             "OUTPUT = 'softmax'\n"}  # fmt: skip
    assert guide_pages.missing_names(text) == []
