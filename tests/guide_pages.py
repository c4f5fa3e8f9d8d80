"""Reading the guides in docs/guides/ as a program would: the files their blocks hold, and the
code their inline spans name, so tests can follow a page and check that what it names exists.

Conventions the pages keep (docs/guides/adding-a-workload.md states the first):
- a fenced block whose first line is `# file: <path>` is that file's whole content, the marker
  line included;
- inline code that looks like a repository path (`models/flops.py`, `conf/model/<name>.yaml`)
  or a dotted name rooted in a project package (`frameworks.registry.BackendSpec`) is a claim
  that the path or the symbol exists.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from twinbench.paths import REPO_ROOT

PAGES_DIR = REPO_ROOT / "docs" / "guides"
FILE_MARKER = re.compile(r"^# file: (\S+)$")
FENCE = re.compile(r"^(```|~~~)")
INLINE = re.compile(r"`([^`\n]+)`")
# Top-level folders a path in inline code may start with, and the packages a dotted name may.
PATH_ROOTS = ("models", "frameworks", "conf", "benchdata", "twinbench", "analysis", "tests",
              "benchmarks", "hydra_plugins", "docs")  # fmt: skip
PACKAGES = ("models", "frameworks", "benchdata", "twinbench", "analysis", "benchmarks")
PATH = re.compile(rf"^(?:{'|'.join(PATH_ROOTS)})/[\w./<>-]*$")
DOTTED = re.compile(rf"^(?:{'|'.join(PACKAGES)})(?:\.[A-Za-z_]\w*)+$")
COMMAND_MODULE = re.compile(r"python -m ([\w.]+)")
ROOT_FILE = re.compile(r"^[\w-]+\.(?:py|toml|txt|cfg)$")  # run.py, pyproject.toml, requirements.txt


def split_fences(text: str) -> tuple[list[list[str]], str]:
    """The page's fenced blocks (each a list of its lines, fences excluded) and its prose with
    the blocks removed."""
    blocks: list[list[str]] = []
    prose: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            if current is None:
                current = []
            else:
                blocks.append(current)
                current = None
            continue
        (prose if current is None else current).append(line)
    if current is not None:
        raise ValueError("a fenced block is never closed")
    return blocks, "\n".join(prose)


def file_blocks(text: str) -> dict[str, str]:
    """path -> content of every block whose first line is `# file: <path>`, in page order."""
    files: dict[str, str] = {}
    for block in split_fences(text)[0]:
        marker = FILE_MARKER.match(block[0]) if block else None
        if marker:
            path = marker.group(1)
            if path in files:
                raise ValueError(f"two blocks claim {path}")
            files[path] = "\n".join(block) + "\n"
    return files


def inline_code(text: str) -> list[str]:
    """Every inline code span of the prose (fenced blocks left out)."""
    return INLINE.findall(split_fences(text)[1])


def named_paths(text: str) -> list[str]:
    spans = inline_code(text)
    return sorted({s for s in spans if PATH.match(s) or ROOT_FILE.match(s)})


def named_symbols(text: str) -> list[str]:
    """Dotted names rooted in a project package, from inline code and from `python -m X`."""
    spans = inline_code(text)
    commands = [m.group(1) for s in [*spans, text] for m in COMMAND_MODULE.finditer(s)]
    modules = {c for c in commands if c.split(".")[0] in PACKAGES}  # `python -m analysis` too
    return sorted({s for s in spans if DOTTED.match(s)} | modules)


def path_exists(path: str, root: Path = REPO_ROOT, created: set[str] = frozenset()) -> bool:
    """The path exists under `root` (or a page's own block creates it); a `<placeholder>` part
    must match at least one existing name."""
    if path.rstrip("/") in created:
        return True
    if "<" in path:
        pattern = re.sub(r"<[^>]+>", "*", path.rstrip("/"))
        return any(root.glob(pattern))
    return (root / path).exists()


def _module_file(parts: list[str], root: Path) -> tuple[Path, int] | None:
    """The longest prefix of `parts` that is a module: its file and how many parts it takes."""
    for n in range(len(parts), 0, -1):
        base = root.joinpath(*parts[:n])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate, n
    return None


def _defined(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """Names bound at this level of a module or class body: defs, classes, assignments, imports."""
    names: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.ImportFrom | ast.Import):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = node
    return names


def symbol_exists(dotted: str, root: Path = REPO_ROOT) -> bool:
    """`package.module.Name[.member]` names a module in `root`, then names bound in it (a class's
    members included), read from the source without importing anything."""
    parts = dotted.split(".")
    found = _module_file(parts, root)
    if found is None:
        return False
    path, used = found
    rest = parts[used:]
    if not rest:
        return True
    scope: list[ast.stmt] = ast.parse(path.read_text()).body
    for depth, name in enumerate(rest, 1):
        node = _defined(scope).get(name)
        if node is None:
            return False
        if depth == len(rest):
            return True
        if not isinstance(node, ast.ClassDef):
            return False  # only a class's members can be read from the source
        scope = node.body
    return True


def missing_names(text: str, root: Path = REPO_ROOT) -> list[str]:
    """Every path and symbol the page names that `root` lacks (a page's own blocks count as
    present, and so do the modules they create)."""
    created = set(file_blocks(text))
    created_modules = {p[: -len(".py")].replace("/", ".") for p in created if p.endswith(".py")}
    missing = [p for p in named_paths(text) if not path_exists(p, root, created)]
    for dotted in named_symbols(text):
        if any(dotted == m or dotted.startswith(m + ".") for m in created_modules):
            continue
        if not symbol_exists(dotted, root):
            missing.append(dotted)
    return missing
