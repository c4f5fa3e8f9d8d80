"""No framework is hard-coded outside frameworks/, models/ and benchmarks/: analysis/ and twinbench/
take the backends from the records and the registry, so a new backend needs no edit there.

The check reads the code, not the prose: identifiers (names, attributes, arguments, functions),
imports and string constants that use a backend or runtime name as code (`"torch"`,
`"torch_time"`, `"backend=torch,..."`). Docstrings, comments and prose in strings ("torch's
profiler") may explain a framework.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from frameworks import registry

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("analysis", "twinbench")
# Every backend and runtime the registry names, and the libraries the adapters import.
NAMES = sorted(
    {*registry.names(), *(registry.spec(n).runtime for n in registry.names()), "torch",
     "tensorflow", "jax", "keras_torch", "keras_jax"},
    key=len,
    reverse=True,
)  # fmt: skip
# (file, name): why that file may say it. Keep this short; each entry is a decision.
ALLOWED: dict[tuple[str, str], str] = {}  # the defaults live in frameworks/registry.py

WORD = "|".join(re.escape(n) for n in NAMES)
# A name used as code inside a string: the whole string, or joined to an identifier or a list
# by `_`, `=`, `,` or `.` without a space (column names, overrides, file suffixes); prose
# ("torch, TensorFlow", "torch's") is not code.
AS_CODE = re.compile(
    rf"^(?:{WORD})$|[_=,.](?:{WORD})(?![A-Za-z0-9])|(?<![A-Za-z0-9'])(?:{WORD})(?:_|[,.](?=\S))"
)


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _identifier_hits(name: str) -> set[str]:
    parts = name.split("_")
    hits = set()
    for n in NAMES:
        size = n.count("_") + 1
        if any("_".join(parts[i : i + size]) == n for i in range(len(parts) - size + 1)):
            hits.add(n)
    return hits


def framework_names(path: Path) -> list[tuple[int, str, str]]:
    """(line, framework name, what) for each use of a framework name as code in `path`."""
    tree = ast.parse(path.read_text(), str(path))
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            modules += [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            for module in modules:
                top = module.split(".")[0]
                if top in NAMES:
                    found.append((line, top, f"import {module}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docs:
                continue
            for match in AS_CODE.finditer(node.value):
                name = re.search(WORD, match.group()).group()
                found.append((line, name, repr(node.value[:60])))
        else:
            ident = (
                getattr(node, "id", None)
                if isinstance(node, ast.Name)
                else getattr(node, "attr", None)
                if isinstance(node, ast.Attribute)
                else getattr(node, "arg", None)
                if isinstance(node, ast.arg | ast.keyword)
                else getattr(node, "name", None)
                if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
                else None
            )
            if isinstance(ident, str):
                for name in _identifier_hits(ident.lower()):
                    found.append((line, name, f"identifier {ident}"))
    return found


def scan(root: Path) -> list[str]:
    out = []
    for folder in CHECKED:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for line, name, what in framework_names(path):
                if (rel, name) not in ALLOWED:
                    out.append(f"{rel}:{line}: {name} ({what})")
    return out


def test_analysis_and_twinbench_name_no_framework_in_code():
    hits = scan(ROOT)
    assert not hits, "framework names as code outside frameworks/:\n" + "\n".join(hits)


@pytest.mark.parametrize(
    "code",
    [
        'FRAMEWORKS = ("torch", "tensorflow")',
        'col = f"{x}_time" if x else "torch_time"',
        'cmd = "run -m backend=torch,tensorflow"',
        "import tensorflow as tf",
        "from jax import numpy",
        "def f(torch_var):\n    return torch_var",
        "n_keras_jax = 1",
    ],
)
def test_the_check_finds_a_hard_coded_framework(tmp_path, code):
    (tmp_path / "analysis").mkdir()
    (tmp_path / "twinbench").mkdir()
    (tmp_path / "analysis" / "bad.py").write_text(code + "\n")
    assert scan(tmp_path), code


@pytest.mark.parametrize(
    "code",
    [
        '"""torch and TensorFlow: a docstring may explain them."""',
        "x = \"<p>Profilers add overhead, torch's per op more than TensorFlow's.</p>\"",
        'y = f"{reference} time / {other} time"',
    ],
)
def test_prose_about_a_framework_is_not_code(tmp_path, code):
    (tmp_path / "analysis").mkdir()
    (tmp_path / "twinbench").mkdir()
    (tmp_path / "analysis" / "fine.py").write_text(code + "\n")
    assert scan(tmp_path) == []
