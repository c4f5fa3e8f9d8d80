"""How often the resident design decides, and how often wrongly: a simulation through its code.

    python -m twinbench.launch.resident_power       # conf/decision/resident_power.yaml's table
    python -m twinbench.launch.resident_power --sequences 2000 --blocks 20 40

Each simulated comparison is a deciding series as the sweep runs it: worker pairs one after
the other, each made of two workers with their own lifelong state (log speed ~ N(0,
process_sd), and now and then a far state), each block with its own noise; the blocks go through
twinbench.launch.resident.unit_of and the units through twinbench.launch.decide.Series, the very
code a resident deciding sweep runs, with a pair's seconds (start-ups plus its rounds) charged
against the core count's budget. Printed per K (resident_blocks) and true effect: how often A
faster, B faster, equivalent or undecided. At effect 0 (A/A) a "faster" verdict is a false
decision: at most alpha is the claim tests/test_resident.py holds. At 5% and 10% the A-faster
rate is the power within the budget.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from twinbench.launch.decide import Series
from twinbench.launch.resident import unit_of
from twinbench.launch.turns import Block
from twinbench.paths import CONF_DIR
from twinbench.sequential import OUTCOMES, Design, load_design

MODEL = CONF_DIR / "decision" / "resident_power.yaml"


@dataclasses.dataclass(frozen=True)
class Machine:
    """The simulated machine (conf/decision/resident_power.yaml says where each value is from)."""

    process_sd: float
    slow_state_chance: float
    slow_state_shift: float
    block_sd: float
    startup_s: float
    round_s: float
    budget_s: float


def load_model(path: Path = MODEL) -> tuple[Machine, dict[str, Any]]:
    """The machine and the script's other settings (sequences, effects, blocks, seed)."""
    data = yaml.safe_load(Path(path).read_text())
    fields = {f.name for f in dataclasses.fields(Machine)}
    return Machine(**{k: data[k] for k in fields}), {
        k: v for k, v in data.items() if k not in fields
    }


def _worker_state(rng: np.random.Generator, m: Machine) -> float:
    far = rng.random() < m.slow_state_chance
    return float(rng.normal(0.0, m.process_sd) + (m.slow_state_shift if far else 0.0))


def one_series(effect: float, design: Design, m: Machine, rng: np.random.Generator) -> Series:
    """One simulated core count, decided as the sweep decides it; A faster by `effect`."""
    series = Series("simulated", design, design.max_pairs)
    seconds = m.startup_s + design.resident_blocks * m.round_s
    shift = -math.log1p(effect)  # A's log time below B's
    while not series.done:
        a_state, b_state = _worker_state(rng, m), _worker_state(rng, m)
        noise = rng.normal(0.0, m.block_sd, size=(2, design.resident_blocks))
        a = [Block(math.exp(a_state + shift + e), 1.0, design.turn_ticks, False) for e in noise[0]]
        b = [Block(math.exp(b_state + e), 1.0, design.turn_ticks, False) for e in noise[1]]
        unit = unit_of(a, b, design)
        ratios = None if unit is None else {"wall": unit.ratios["wall"], "cpu": 1.0}
        series.add_unit(["a", "b"], ratios, 0 if unit is None else unit.rounds, seconds)
    return series


def rates(effect: float, design: Design, m: Machine, sequences: int, seed: int) -> dict[str, Any]:
    """Outcome rates over `sequences` simulated series, and their mean units and seconds."""
    rng = np.random.default_rng(seed)
    budgeted = dataclasses.replace(design, max_seconds=m.budget_s, total_seconds=None)
    ended = [one_series(effect, budgeted, m, rng) for _ in range(sequences)]
    counts = Counter(s.decision.outcome if s.decision else "undecided" for s in ended)
    # Power in the weaker sense: the interval excludes equality, A side (decided beyond the
    # margin, or undecided but showing A faster by less than it).
    shown = sum(
        1
        for s in ended
        if s.decision
        and (s.decision.outcome == "a_faster" or (s.decision.shown_difference() or ("",))[0] == "a")
    )
    return {
        "effect": effect,
        "resident_blocks": design.resident_blocks,
        "sequences": sequences,
        **{o: counts[o] / sequences for o in OUTCOMES},
        "shows_a_faster": shown / sequences,
        "mean_units": float(np.mean([len(s.ratios["wall"]) for s in ended])),
    }


def table(design: Design, m: Machine, settings: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for k in settings["blocks"]:
        d = dataclasses.replace(design, resident_blocks=int(k))
        for effect in settings["effects"]:
            rows.append(rates(float(effect), d, m, int(settings["sequences"]), settings["seed"]))
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m twinbench.launch.resident_power", description=__doc__
    )
    p.add_argument("--sequences", type=int, help="simulated comparisons per row")
    p.add_argument("--blocks", type=int, nargs="+", help="resident_blocks (K) values")
    p.add_argument("--effects", type=float, nargs="+", help="true effects (0.05: A 5%% faster)")
    for field in dataclasses.fields(Machine):  # any of the machine's values, e.g. a measured one
        flag = "--" + field.name.replace("_", "-")
        p.add_argument(flag, type=float, help=f"the machine's {field.name} (default: the model)")
    p.add_argument("--max-pairs", type=int, help="units a series may run (default: conf's)")
    p.add_argument("--json", type=Path, help="also write the rows here")
    args = p.parse_args(argv)
    m, settings = load_model()
    if args.sequences:
        settings["sequences"] = args.sequences
    if args.blocks:
        settings["blocks"] = args.blocks
    if args.effects:
        settings["effects"] = args.effects
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(Machine)}
    m = dataclasses.replace(m, **{k: v for k, v in given.items() if v is not None})
    design = load_design(pairing="resident")
    if args.max_pairs:
        design = dataclasses.replace(design, max_pairs=args.max_pairs)
    print(f"machine: {m}")
    print(
        f"design: margin +-{design.margin:.0%}, alpha {design.alpha:.0%}, blocks of "
        f"{design.turn_ticks} ticks"
    )
    print("  K  effect  A faster  B faster  equivalent  undecided  shows A faster  units")
    rows = table(design, m, settings)
    for r in rows:
        print(
            f"{r['resident_blocks']:>3}  {r['effect']:>5.1%}  {r['a_faster']:>8.1%}  "
            f"{r['b_faster']:>8.1%}  {r['equivalent']:>10.1%}  {r['undecided']:>9.1%}  "
            f"{r['shows_a_faster']:>13.1%}  {r['mean_units']:>5.1f}"
        )
    if args.json:
        args.json.write_text(json.dumps({"machine": dataclasses.asdict(m), "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
