"""The report's sections come from one list (analysis/render/contents.py): the page writes them
in its order, the navigation links exactly those on the page in the same order, each section
writes only the heading it names, and a section added to the list needs nothing else."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from analysis.compute import pipeline
from analysis.load.table import runs_table
from analysis.render import contents, report
from analysis.render.page import Page, Section

from .test_analysis_report import make_results

HEADING = re.compile(r'<h2 id="([^"]+)"')
NAV = re.compile(r"<nav>(.*?)</nav>", re.S)
LINK = re.compile(r'<a href="#([^"]+)">([^<]*)</a>')


@pytest.fixture(scope="module")
def analysis(tmp_path_factory) -> pipeline.Analysis:
    """The report tests' fake results: most sections have something to show."""
    root = tmp_path_factory.mktemp("sections")
    sweep, parity, legacy = make_results(root)
    options = pipeline.Options(inputs=[sweep, legacy], parity_dirs=[parity])
    return pipeline.analyze(runs_table([sweep, legacy]), options)


def headings_and_links(page: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The ids of the page's sections, and the navigation's (id, link text)."""
    (nav,) = NAV.findall(page)
    return HEADING.findall(page), [(a, html.unescape(t)) for a, t in LINK.findall(nav)]


def test_the_list_names_each_heading_once():
    ids = [s.id for s in contents.SECTIONS]
    assert len(ids) == len(set(ids))


def test_the_nav_links_every_section_on_the_page_in_the_lists_order(analysis, tmp_path):
    headings, links = headings_and_links(report.write(analysis, tmp_path).read_text())
    order = [s.id for s in contents.SECTIONS]
    assert len(headings) > len(order) // 2  # the fakes fill most of the report
    assert headings == sorted(headings, key=order.index)  # the page in the list's order
    titles = {s.id: s.nav for s in contents.SECTIONS}
    assert links == [(h, titles[h]) for h in headings]  # every section on the page, linked


def test_each_section_writes_only_the_heading_it_names(analysis, tmp_path):
    page = Page(tmp_path)
    for sub in ("figures", "tables"):
        (page.files / sub).mkdir(parents=True)
    for section in contents.SECTIONS:
        before = len(page.parts)
        section.write(page, analysis)
        written = HEADING.findall("".join(page.parts[before:]))
        assert written in ([], [section.id]), f"{section.id} wrote {written}"


def test_a_section_added_to_the_list_shows_up_in_the_nav_and_the_page(
    analysis, tmp_path: Path, monkeypatch
):
    def write(page: Page, an: pipeline.Analysis) -> None:
        page.add('<h2 id="added">An added section</h2>')

    added = Section("added", "added here", write)
    listed = contents.SECTIONS
    at = [s.id for s in listed].index("framework") + 1
    monkeypatch.setattr(contents, "SECTIONS", [*listed[:at], added, *listed[at:]])
    headings, links = headings_and_links(report.write(analysis, tmp_path).read_text())
    assert headings[headings.index("framework") + 1] == "added"
    assert links[[a for a, _ in links].index("framework") + 1] == ("added", "added here")


def test_a_section_that_writes_nothing_gets_no_link(analysis, tmp_path, monkeypatch):
    silent = Section("silent", "silent", lambda page, an: None)
    monkeypatch.setattr(contents, "SECTIONS", [*contents.SECTIONS, silent])
    _, links = headings_and_links(report.write(analysis, tmp_path).read_text())
    assert "silent" not in [a for a, _ in links]
