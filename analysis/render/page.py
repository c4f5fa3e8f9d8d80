"""The report page being written, and what writes to it: a Section names its heading's id and
its link in the page's navigation, and writes its markup, figures and tables into the Page."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from markupsafe import Markup

from analysis.render.htmlkit import render, slug

FILES = "report_files"
LIST_COLUMNS = ("samples", "step_samples")  # per-repeat samples: in runs.csv, not repeated here


@dataclass
class Page:
    out: Path
    parts: list[str] = field(default_factory=list)
    not_measured: list[tuple[str, str]] = field(default_factory=list)  # (section, why)
    figures: list[Path] = field(default_factory=list)
    tables: list[Path] = field(default_factory=list)

    @property
    def files(self) -> Path:
        return self.out / FILES

    def add(self, markup: str) -> None:
        """Markup for the page: a rendered template, or a string of markup written here (its
        values passed through esc())."""
        self.parts.append(Markup(markup))

    def anchors(self) -> set[str]:
        """The ids of the sections written so far: the header links only to those."""
        return set(re.findall(r'<h2 id="([^"]+)"', "".join(self.parts)))

    def figure(self, fig: Any, name: str, alt: str) -> None:
        # matplotlib (via charts) only where a figure is drawn: the sweep's terminal summary
        # imports this module for its decisions table and draws none
        from analysis.render import charts

        data = charts.png(fig)
        path = self.files / "figures" / f"{slug(name)}.png"
        path.write_bytes(data)
        self.figures.append(path)
        encoded = base64.b64encode(data).decode("ascii")
        self.add(render("figure.html.j2", data=encoded, alt=alt))

    def csv(self, df: pd.DataFrame, name: str) -> None:
        path = self.files / "tables" / f"{slug(name)}.csv"
        df.drop(columns=[c for c in LIST_COLUMNS if c in df.columns]).to_csv(path, index=False)
        self.tables.append(path)
        self.add(render("csv.html.j2", href=path.relative_to(self.out).as_posix()))


@dataclass(frozen=True)
class Section:
    """One section of the report. `write(page, analysis)` writes its heading (<h2 id="{id}">),
    text, figures (page.figure) and tables (table_html + page.csv), or says why it has nothing
    (page.not_measured) and writes nothing. `nav` is the text of its link in the page's
    navigation (None: no link)."""

    id: str
    nav: str | None
    write: Callable[[Page, Any], None]
