"""What an equivalence certificate certifies, fingerprinted without importing a framework.

A certificate (twinbench.parity writes them) holds this fingerprint: hashes of the model's file
and config, of every backend's certified training code (the registry's list) and of the shared
optimizer formulas, and the installed framework versions. The analysis recomputes it to tell a
current certificate from a stale one, so it lives here, framework-free, beside the registry.
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path
from typing import Any

from frameworks import registry
from models.catalog import model_config
from twinbench.paths import CONF_DIR, REPO_ROOT

# What a certificate certifies besides the model's own file and config: the code that turns a
# config into each backend's training math (the registry's certified_code) and the optimizer
# formulas every backend shares.
SHARED_CERTIFIED_CODE = ("frameworks/optimizer_formula.py",)


def framework_packages() -> tuple[str, ...]:
    """The packages whose versions a certificate certifies: every registered backend's."""
    return registry.packages()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _source(path: str) -> Path:
    """Where a certified file is: conf/ files in CONF_DIR (inside the package when installed,
    where there is no conf/ beside it), the code beside the packages."""
    conf = "conf/"
    return CONF_DIR / path.removeprefix(conf) if path.startswith(conf) else REPO_ROOT / path


def _installed(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def fingerprint(model_name: str) -> dict[str, Any]:
    """What a certificate certifies, read without importing a framework: hashes of the model's
    file and config and of the optimizer and layout code, and the installed framework versions."""
    own = [f"models/{model_name}.py", f"conf/model/{model_name}.yaml"]
    files = [*own, *registry.certified_code(), *SHARED_CERTIFIED_CODE]
    found = {path: _source(path) for path in files}
    hashes = {path: _sha256(file.read_bytes()) for path, file in found.items() if file.is_file()}
    config = json.dumps(model_config(model_name), sort_keys=True).encode()
    return {
        "files": hashes,
        "config_sha256": _sha256(config),
        "versions": {p: v for p in framework_packages() if (v := _installed(p)) is not None},
    }


def differences(certified: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """What changed since the certificate, one short phrase each."""
    changed = []
    files_then, files_now = certified.get("files") or {}, current["files"]
    changed += [
        p for p in sorted({*files_then, *files_now}) if files_then.get(p) != files_now.get(p)
    ]
    if certified.get("config_sha256") != current["config_sha256"]:
        changed.append("resolved model config")
    versions_then, versions_now = certified.get("versions") or {}, current["versions"]
    changed += [
        f"{p} {versions_then.get(p)} -> {versions_now.get(p)}"
        for p in sorted({*versions_then, *versions_now})
        if versions_then.get(p) != versions_now.get(p)
    ]
    return changed
