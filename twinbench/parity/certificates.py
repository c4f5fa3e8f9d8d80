"""Certificates: writing a pair's (and the model's summary of every pair), and the status a run
records from them ("pass", "fail", "not checked", or "stale" where what was certified changed)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from frameworks import certified
from frameworks.certified import differences, fingerprint
from frameworks.tolerances import BASE, REFERENCE
from twinbench.machine import environment
from twinbench.paths import WORK_ROOT
from twinbench.result import results

if TYPE_CHECKING:  # the reports' types alone: status() needs no comparison code
    from twinbench.parity.compare import ParityReport
    from twinbench.parity.precision_parity import PrecisionReport

CERT_DIR = WORK_ROOT / "results" / "parity"
# Certificates of a stack other than the project's own environment (conf/stack/) live apart,
# one folder per stack: a stack's releases are certified on their own.
STACKS_SUBDIR = "stacks"


def stack_pins(stack: dict[str, Any] | None) -> dict[str, str]:
    """The pins of a run config's `stack` node (name==version list), as {name: version}."""
    pins = (stack or {}).get("pins") or []
    return dict(str(p).split("==", 1) for p in pins)


def directory_for(stack: dict[str, Any] | None, root: Path = CERT_DIR) -> Path:
    """Where the certificates of runs on `stack` live: `root` for the project's environment,
    root/stacks/<name> for another stack."""
    if not stack_pins(stack):
        return root
    return root / STACKS_SUBDIR / str(stack["name"])  # type: ignore[index]


def certificate_path(
    model_name: str, directory: Path = CERT_DIR, backend: str | None = None
) -> Path:
    """A pair's certificate, <model>.<backend>.json; without a backend, the model's summary of
    every pair, <model>.json."""
    return directory / (f"{model_name}.{backend}.json" if backend else f"{model_name}.json")


def _command(
    model_name: str, backend: str | None = None, stack: dict[str, Any] | None = None
) -> str:
    return (
        f"python -m twinbench.parity {model_name}"
        + (f" --backends {backend}" if backend else "")
        + (f" --stack {stack['name']}" if stack and stack_pins(stack) else "")
    )


def write_certificate(
    report: ParityReport, directory: Path | None = None, stack: dict[str, Any] | None = None
) -> Path:
    """The pair's certificate, then the model's summary rewritten from every pair certified;
    `stack`: the run config's stack node this process runs on (None: the project's own)."""
    directory = directory_for(stack) if directory is None else directory
    path = certificate_path(report.model, directory, report.backend)
    printed = fingerprint(report.model, stack_pins(stack))
    # A bfloat16 parity block (record_precision) carries its own fingerprint: it stays
    # across a float32 re-certification, and precision_status() tells when it went stale.
    earlier = _readable(path) if path.exists() else None
    kept = earlier.get("precision") if isinstance(earlier, dict) else None
    results.write_atomic(
        path,
        {
            **asdict(report),
            "fingerprint": printed,
            "checked": environment.now_iso(),
            "command": _command(report.model, report.backend, stack),
            **({"stack": stack} if stack_pins(stack) else {}),
            **({"precision": kept} if isinstance(kept, dict) else {}),
        },
    )
    _write_summary(report.model, directory, printed, stack)
    return path


def record_precision(report: PrecisionReport, directory: Path = CERT_DIR) -> Path | None:
    """The pair certificate gains (or renews) its "precision" block: the bfloat16 parity's
    figures, verdict, command and fingerprint. The float32 figures and their fingerprint stay as
    they were, so a certificate does not turn stale for it. None where the pair has no
    readable certificate to annotate (`python -m twinbench.parity MODEL` writes one)."""
    path = certificate_path(report.model, directory, report.backend)
    cert = _readable(path) if path.exists() else None
    if not isinstance(cert, dict):
        return None
    block = {
        **asdict(report),
        "fingerprint": certified.precision_fingerprint(report.model),
        "checked": environment.now_iso(),
        "command": _command(report.model, report.backend) + f" --precision {report.precision}",
    }
    cert["precision"] = {**(cert.get("precision") or {}), report.precision: block}
    results.write_atomic(path, cert)
    return path


def _write_summary(
    model_name: str,
    directory: Path,
    printed: dict[str, Any],
    stack: dict[str, Any] | None = None,
) -> None:
    """<model>.json: every pair certificate in `directory` taken together (the worst figures,
    all failures, pass only where every certified pair passes)."""
    pairs = {
        cert["backend"]: cert
        for p in sorted(directory.glob(f"{model_name}.*.json"))
        if isinstance(cert := _readable(p), dict)
        and cert.get("model") == model_name
        and certified.verdict(cert)[0] != "invalid"  # a broken pair is re-certified, not summed
    }
    if not pairs:
        return
    worst = max(pairs.values(), key=lambda c: c["forward_max_abs_diff"])
    params: dict[str, int] = {}
    for cert in pairs.values():
        params.update(cert.get("params") or {})
    results.write_atomic(
        certificate_path(model_name, directory),
        {
            "model": model_name,
            "reference": worst.get("reference"),
            "backends": sorted(pairs),
            "params": params,
            "expected_params": worst.get("expected_params"),
            "forward_max_abs_diff": worst["forward_max_abs_diff"],
            "weight_roundtrip_max_abs_diff": max(
                c["weight_roundtrip_max_abs_diff"] for c in pairs.values()
            ),
            "optimizer": worst.get("optimizer"),
            "training": {
                BASE: max(
                    (c.get("training", {}).get(BASE) or {} for c in pairs.values()),
                    key=lambda t: t.get("weight_max_abs_diff", 0.0),
                )
            },
            # the worst pair's per-layer figures (layer_parity.py): a reader judges the
            # summary's too, and a transformer's summary without them would read invalid
            "forward_layers": max(
                (c.get("forward_layers") or {} for c in pairs.values()),
                key=lambda f: max([*f.get("layers", {}).values(), f.get("output", 0.0)]),
            ),
            "passed": all(c["passed"] for c in pairs.values()),
            "failures": [f"{b}: {f}" for b, c in pairs.items() for f in c.get("failures") or []],
            "fingerprint": printed,
            "checked": max(c["checked"] for c in pairs.values()),
            "command": _command(model_name, stack=stack),
        },
    )


def _readable(path: Path) -> Any:
    try:
        return results.read(path)
    except (OSError, ValueError):
        return None


def status(
    model_name: str,
    directory: Path | None = None,
    backend: str | None = None,
    stack: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What result.json records about the model's equivalence on `backend` (against the
    reference; for the reference itself or no backend, the summary of every pair): the
    certificate's verdict, or "stale" where the code, config or framework versions it certified
    have changed since. On a `stack` other than the project's environment, that stack's own
    certificate (directory_for), "not checked" until one is made with --stack."""
    directory = directory_for(stack) if directory is None else directory
    if backend is not None and backend == _reference_of(model_name, directory):
        backend = None
    path = certificate_path(model_name, directory, backend)
    command = _command(model_name, backend, stack)
    current = fingerprint(model_name, stack_pins(stack))
    if not path.exists():
        found = {"status": "not checked", "command": command, "fingerprint": current}
        if stack_pins(stack):
            found["stack"] = stack["name"]  # type: ignore[index]
        return found
    try:
        cert = results.read(path)
    except (OSError, ValueError) as exc:  # cut off mid-file, or not JSON at all
        cert = f"unreadable ({type(exc).__name__})"
    verdict, why = certified.verdict(cert)
    if verdict == "invalid":
        # A certificate is an annotation: a broken one never costs the run it annotates.
        return {
            "status": "invalid",
            "reason": cert if isinstance(cert, str) else why,  # str: the read failed
            "certificate": str(path),
            "fingerprint": current,
            "command": command,
            "advice": f"re-certify: {command}",
        }
    changed = differences(cert.get("fingerprint") or {}, current)
    return {
        "status": "stale" if changed else verdict,
        **({"changed_since": changed} if changed else {}),
        "certificate": str(path),
        "checked": cert.get("checked"),
        "forward_max_abs_diff": cert["forward_max_abs_diff"],
        "fingerprint": current,
        "command": command,
    }


def precision_status(
    model_name: str, directory: Path = CERT_DIR, backend: str | None = None
) -> dict[str, str]:
    """The pair certificate's bfloat16 parity blocks (record_precision): {"bfloat16": "pass" |
    "fail" | "stale"}, stale where the code, config or versions they certified changed; empty
    where bfloat16 parity was never recorded. Apart from status(), whose keys the run record's
    parity block fixes."""
    path = certificate_path(model_name, directory, backend)
    cert = _readable(path) if path.exists() else None
    blocks = cert.get("precision") if isinstance(cert, dict) else None
    if not isinstance(blocks, dict):
        return {}
    current = certified.precision_fingerprint(model_name)
    found = {}
    for precision, block in blocks.items():
        if not isinstance(block, dict):
            found[precision] = "invalid"
        elif differences(block.get("fingerprint") or {}, current):
            found[precision] = "stale"
        else:
            found[precision] = "pass" if block.get("passed") is True else "fail"
    return found


def _reference_of(model_name: str, directory: Path) -> str:
    """The reference the model's summary certificate names (REFERENCE where there is none)."""
    path = certificate_path(model_name, directory)
    try:
        cert = results.read(path) if path.exists() else None
    except (OSError, ValueError):  # unreadable: status() reports it, the reference is the default
        cert = None
    return (cert.get("reference") if isinstance(cert, dict) else None) or REFERENCE
