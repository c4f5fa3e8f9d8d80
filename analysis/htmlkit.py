"""HTML building blocks for the report: escaped cells, short number formats, tables that flag
their rows (single run, unstable, failed) instead of leaving anything out."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd


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
    kind: str = "t"  # t text, x ratio, s seconds, pct, money, g number, bool


def table_html(
    df: pd.DataFrame, cols: list[Col], row_class: Callable[[pd.Series], str] | None = None
) -> str:
    cols = [c for c in cols if c.name in df.columns]
    head = "".join(f'<th class="{"t" if c.kind == "t" else ""}">{esc(c.header)}</th>' for c in cols)
    body = []
    for _, row in df.iterrows():
        cls = row_class(row) if row_class else ""
        cells = "".join(
            f'<td class="{"t" if c.kind == "t" else ""}">{esc(fmt(row[c.name], c.kind))}</td>'
            for c in cols
        )
        body.append(f'<tr class="{cls}">{cells}</tr>')
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f'<div class="scroll">{table}</div>'  # wide tables scroll, the page does not


def stability_class(row: pd.Series) -> str:
    if row.get("n_ok", 1) == 0:
        return "failed"
    classes = []
    if row.get("config_label") is not None and row.get("config_label") == row.get("baseline"):
        classes.append("base")
    if row.get("unstable"):
        classes.append("single" if row.get("n_ok", 0) < 2 else "unstable")
    return " ".join(classes)
