"""HTML building blocks for the report: Jinja2 templates with autoescaping, short number
formats, tables that flag their rows (single run, unstable, failed) instead of leaving anything
out."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jinja2
import pandas as pd
from markupsafe import Markup

# Autoescaping: every value reaches the page escaped unless it is already Markup (a rendered
# template). The templates ship with the package (analysis/templates/).
TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("analysis", "templates"),
    autoescape=True,
    keep_trailing_newline=False,
    undefined=jinja2.StrictUndefined,
)


def _oneline(markup: Markup) -> Markup:
    """`{% filter oneline %}`: a paragraph written over several template lines, rendered as
    one line (each line break and its indentation a single space), as the page has always had
    it. Its input is already-escaped markup, so it stays Markup."""
    return Markup(re.sub(r"\s*\n\s*", " ", str(markup)).strip())


TEMPLATES.filters["oneline"] = _oneline


def render(template: str, **context: Any) -> Markup:
    """A template from analysis/templates/, rendered with autoescaping."""
    return Markup(TEMPLATES.get_template(template).render(**context).strip())


def prose(section: str) -> Any:
    """The headings and prose of one report section: analysis/templates/sections/<section>.
    html.j2, whose macros each render one part of the page (`prose("explain").verdict_intro()`)."""
    return TEMPLATES.get_template(f"sections/{section}.html.j2").module


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", str(text)).strip("_").lower() or "x"


def esc(value: Any) -> str:
    return html.escape(str(value))


def missing(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def fmt(v: Any, kind: str) -> str:
    """Short display of a value; the CSV keeps the full precision."""
    if missing(v):
        return "—"
    if kind == "x":
        return f"{v:.3f}x"
    if kind == "s":
        return f"{v:.4g}"
    if kind == "ms":  # a time held in seconds, shown in milliseconds
        return f"{v * 1e3:.4g}"
    if kind == "n0":  # a rate or count: whole units with thousands separators
        return f"{v:,.0f}"
    if kind == "pct":
        return f"{v:.1%}"
    if kind == "money":
        return money(v)
    if kind == "g":
        return f"{v:.6g}"
    if kind == "bool":
        return "yes" if v else "no"
    return str(v)


def money(v: float, currency: str = "") -> str:
    """Three significant digits, never in e-notation, at least cents: 0.0000366, 0.42, 1,234.00
    (the CSV keeps every digit)."""
    if v == 0 or missing(v):
        text = "0.00"
    else:
        decimals = max(2, 2 - math.floor(math.log10(abs(v))))
        text = f"{v:,.{decimals}f}"
    return f"{text} {currency}" if currency else text


@dataclass
class Col:
    name: str
    header: str
    kind: str = "t"  # t text, x ratio, s seconds, ms seconds shown as ms, n0, pct, money, g, bool


def table_html(
    df: pd.DataFrame, cols: list[Col], row_class: Callable[[pd.Series], str] | None = None
) -> Markup:
    cols = [c for c in cols if c.name in df.columns]
    align = ["t" if c.kind == "t" else "" for c in cols]
    rows = [
        {
            "cls": row_class(row) if row_class else "",
            "cells": [
                {"cls": a, "text": fmt(row[c.name], c.kind)}
                for c, a in zip(cols, align, strict=True)
            ],
        }
        for _, row in df.iterrows()
    ]
    headers = [{"cls": a, "text": c.header} for c, a in zip(cols, align, strict=True)]
    return render("table.html.j2", headers=headers, rows=rows)  # wide tables scroll, not the page


def stability_class(row: pd.Series) -> str:
    if row.get("n_ok", 1) == 0:
        return "failed"
    classes = []
    if row.get("config_label") is not None and row.get("config_label") == row.get("baseline"):
        classes.append("base")
    if row.get("unstable"):
        classes.append("single" if row.get("n_ok", 0) < 2 else "unstable")
    return " ".join(classes)
