"""twinbench core: configuration, the per-run worker process, result records."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
