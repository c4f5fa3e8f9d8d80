"""The scaling model's settings (conf/scaling/default.yaml): the core counts to predict, the
chart's reach past the measurements, the intervals' confidence and the validation's cores."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from analysis.errors import AnalysisError
from twinbench.paths import CONF_DIR

CONFIG = CONF_DIR / "scaling" / "default.yaml"  # the shipped conf in an installed copy too


@dataclass(frozen=True)
class Settings:
    predict_cores: tuple[int, ...]
    chart_extrapolation_factor: float
    confidence: float
    validation_fit_cores: tuple[int, ...]
    validation_holdout_cores: int


def load_settings(path: Path = CONFIG) -> Settings:
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise AnalysisError(f"{path}: cannot read the scaling settings ({exc})") from None
    try:
        return Settings(
            predict_cores=tuple(int(c) for c in data["predict_cores"]),
            chart_extrapolation_factor=float(data["chart_extrapolation_factor"]),
            confidence=float(data["confidence"]),
            validation_fit_cores=tuple(int(c) for c in data["validation_fit_cores"]),
            validation_holdout_cores=int(data["validation_holdout_cores"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise AnalysisError(f"{path}: bad scaling settings ({exc})") from None
