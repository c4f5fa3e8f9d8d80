"""The result schema's page (docs/reference/result-schema.md) is generated from the code and
committed: it must equal what twinbench/result/schema_doc.py renders now, so a field added,
renamed or re-documented without regenerating the page fails here."""

from __future__ import annotations

import re

from twinbench.result import schema_doc
from twinbench.result.blocks import STEADY_STEP_S, Timing
from twinbench.result.record import SCHEMA_HISTORY, ResultRecord


def test_the_committed_page_is_what_the_code_generates():
    assert schema_doc.PAGE.read_text() == schema_doc.render(), (
        f"docs/reference/result-schema.md is stale: run `{schema_doc.COMMAND}`"
    )


def test_the_page_documents_every_field_of_every_block_and_the_history():
    page = schema_doc.render()
    for block in schema_doc._blocks_in_order(ResultRecord):
        for name in block.declared():
            assert f"| `{name}` |" in page, f"{block.__name__}.{name} is not on the page"
    # None where no step lies past the warm-up (issue 45): the page says so
    assert f"| `{STEADY_STEP_S}` | [Summary](#summary) or None | s |" in page
    assert all(change in page for change in SCHEMA_HISTORY.values())
    assert Timing.__name__ in page


def test_the_page_links_only_within_itself():
    links = re.findall(r"\]\(([^)]*)\)", schema_doc.render())
    assert links and all(link.startswith("#") for link in links)
