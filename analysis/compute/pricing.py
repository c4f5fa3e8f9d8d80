"""Cloud price tables (conf/pricing/*.yaml) and the cost of a run: training time x price.

The per-second rate is computed in the 2017 notebook's order, (hourly x (1 + premium)) / 3600,
then scaled by vCPUs / reference vCPUs, and the cost is time x rate: with the 2017 table this
reproduces that study's costs bit for bit (scaling by 2, 4, 8 is exact in binary floating point).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from analysis.errors import AnalysisError
from twinbench.paths import CONF_DIR

PRICING_DIR = CONF_DIR / "pricing"
LEGACY_TABLE = "gce_2017_preemptible"  # what the 2017 logs are always priced with
DEFAULT_TABLE = "gce_2026_on_demand"  # twinbench runs, unless --pricing says otherwise


@dataclass(frozen=True)
class PriceTable:
    name: str
    title: str
    currency: str
    date: str
    source: str
    verified: bool
    cpu_hourly: float
    cpu_vcpus: int
    cpu_premium: float
    gpu_hourly: float | None
    gpu_description: str

    def per_second(self, device: str | None, cpus: Any) -> float | None:
        """Price of one second of a run on `cpus` vCPUs, or of one GPU instance if cuda."""
        if device == "cuda":
            return None if self.gpu_hourly is None else self.gpu_hourly / 3600
        try:
            vcpus = float(cpus)  # numpy and pandas integers arrive here as well as int
        except (TypeError, ValueError):
            return None
        if not vcpus > 0:  # also rejects NaN
            return None
        per_reference = (self.cpu_hourly * (1 + self.cpu_premium)) / 3600
        return per_reference * (vcpus / self.cpu_vcpus)

    def describe(self) -> str:
        gpu = (
            f"GPU instance {self.gpu_hourly} {self.currency}/h ({self.gpu_description})"
            if self.gpu_hourly is not None
            else "no GPU price"
        )
        premium = f" x (1 + {self.cpu_premium})" if self.cpu_premium else ""
        check = "" if self.verified else " NOT VERIFIED: check before quoting."
        return (
            f"{self.title} ({self.date}): {self.cpu_vcpus} vCPU(s) {self.cpu_hourly} "
            f"{self.currency}/h{premium}, linear in vCPUs; {gpu}. Source: "
            f"{self.source.rstrip('.')}.{check}"
        )


def _number(data: dict[str, Any], section: str, key: str, where: Path) -> float:
    value = (data.get(section) or {}).get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AnalysisError(f"{where}: {section}.{key} must be a number, got {value!r}")
    return float(value)


def load(name_or_path: str | Path) -> PriceTable:
    """A table by name (conf/pricing/<name>.yaml) or by path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = PRICING_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in PRICING_DIR.glob("*.yaml")))
        raise AnalysisError(f"no pricing table {name_or_path!s} (known: {known})")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise AnalysisError(f"{path}: not valid YAML ({' '.join(str(exc).split())})") from None
    if not isinstance(data, dict):
        raise AnalysisError(f"{path}: a pricing table must be a mapping")
    gpu = data.get("gpu") or {}
    return PriceTable(
        name=str(data.get("name") or path.stem),
        title=str(data.get("title") or path.stem),
        currency=str(data.get("currency") or "USD"),
        date=str(data.get("date") or "undated"),
        source=" ".join(str(data.get("source") or "not stated").split()),
        verified=bool(data.get("verified", True)),
        cpu_hourly=_number(data, "cpu", "hourly", path),
        cpu_vcpus=int(_number(data, "cpu", "vcpus", path)),
        cpu_premium=float((data.get("cpu") or {}).get("premium") or 0.0),
        gpu_hourly=_number(data, "gpu", "hourly", path) if "hourly" in gpu else None,
        gpu_description=str(gpu.get("description") or "GPU instance"),
    )
