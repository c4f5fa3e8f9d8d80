"""The project's modules import each other without a cycle, deferred (function-level) imports
included: a cycle hidden behind a lazy import still ties two modules' design together, and
surfaces as a half-initialised module the day someone moves the import up."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from twinbench.paths import REPO_ROOT

PACKAGES = ("analysis", "benchdata", "benchmarks", "frameworks", "models", "twinbench")


def modules(root: Path = REPO_ROOT) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            name = ".".join(path.relative_to(root).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _owner(name: str, known: dict[str, Path]) -> str | None:
    """The project module an import name refers to (a package's module, else the package)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(root: Path = REPO_ROOT) -> dict[str, set[str]]:
    """module -> the project modules it imports anywhere in its body."""
    known = modules(root)
    graph: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, *([node.module] if node.module else [])])
                targets = [f"{base}.{a.name}" for a in node.names]
            for target in targets:
                owner = _owner(target, known)
                if owner and owner != module:
                    graph[module].add(owner)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph)))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_import_graph_is_acyclic():
    found = cycles(import_graph())
    detail = "\n".join(
        f"{' <-> '.join(group)}: "
        + "; ".join(f"{m} -> {sorted(import_graph()[m] & set(group))}" for m in group)
        for group in found
    )
    assert not found, f"import cycles:\n{detail}"


def test_the_check_finds_a_cycle_hidden_behind_a_lazy_import(tmp_path):
    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "analysis" / "a.py").write_text("from twinbench import b\n")
    (tmp_path / "twinbench" / "b.py").write_text("def f():\n    from analysis import a\n")
    assert cycles(import_graph(tmp_path)) == [["analysis.a", "twinbench.b"]]


def test_every_analysis_and_twinbench_module_imports_alone_in_sorted_order_without_a_framework():
    names = sorted(m for m in modules() if m.split(".")[0] in ("analysis", "twinbench"))
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = [m for m in ('torch', 'tensorflow', 'keras', 'jax') if m in sys.modules]\n"
        "print('frameworks loaded:', loaded)\n"
        "sys.exit(1 if loaded else 0)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
