"""Nothing in the repository points outside it: no tracked text file cites the design notes the
project was started from, or a sibling folder of the checkout. What they said lives in docs/
(docs/equivalence.md, docs/architecture.md), which is where code comments now point."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from twinbench.paths import REPO_ROOT

# Spelled in pieces so this file does not match itself. The design notes' name as a word (a
# "guides" folder of our own docs is no reference), and the sibling folder as a path.
FORBIDDEN = (re.compile(r"\b" + "GUI" + r"DE\b"), re.compile(re.escape(".." + "/shared")))


def tracked_text_files() -> dict[str, str]:
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("needs a git checkout to list the tracked files")
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    texts = {}
    for name in filter(None, names):
        path = REPO_ROOT / name.decode()
        try:
            texts[name.decode()] = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # a binary file (a PNG), or one deleted in the working tree
    return texts


def offenders(texts: dict[str, str]) -> list[str]:
    return [
        f"{name}:{n}: {line.strip()}"
        for name, text in texts.items()
        for n, line in enumerate(text.splitlines(), 1)
        if any(pattern.search(line) for pattern in FORBIDDEN)
    ]


def test_no_tracked_file_refers_outside_the_repository():
    texts = tracked_text_files()
    assert "README.md" in texts  # the listing worked
    assert offenders(texts) == []


def test_the_check_finds_a_planted_reference():
    notes, sibling = "GUI" + "DE", ".." + "/shared"
    planted = {
        "x.py": "# see " + notes + " §3\n",
        "y.md": "[a](" + sibling + "/z)\n",
        "z.py": "guides = 'docs/guides'\n",  # our own guides folder: not a reference
    }
    assert offenders(planted) == [
        "x.py:1: " + planted["x.py"].strip(),
        "y.md:1: [a](" + sibling + "/z)",
    ]
