"""benchmarks/diagnostics: every one-off experiment behind a dated finding still imports against
today's layout, and importing it runs nothing (no pinning, no framework loaded)."""

from __future__ import annotations

import importlib
import json
import math
import os
import pkgutil
import subprocess
import sys

import numpy as np
import pytest

import benchmarks.diagnostics as diagnostics
from twinbench.paths import REPO_ROOT

MODULES = sorted(m.name for m in pkgutil.iter_modules(diagnostics.__path__))


def test_the_package_holds_the_diagnostics_the_findings_cite():
    expected = {"fresh_validate", "keras_feed", "validate_inproc", "worker_state"}
    assert expected <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_a_diagnostic_imports_without_doing_its_work(name):
    affinity = os.sched_getaffinity(0)
    module = importlib.import_module(f"benchmarks.diagnostics.{name}")
    assert os.sched_getaffinity(0) == affinity  # the CPU budget waits for main()
    if name != "budget":
        assert callable(module.main)


def test_importing_every_diagnostic_loads_no_framework():
    # A fresh interpreter: this test process may have loaded a framework for other tests.
    code = (
        "import importlib, sys\n"
        + "".join(f"importlib.import_module('benchmarks.diagnostics.{n}')\n" for n in MODULES)
        + "print(sorted(m for m in ('tensorflow', 'torch', 'keras', 'jax') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert out.stdout.strip() == "[]"


def test_the_headline_chart_draws_the_published_speed_table(tmp_path):
    from benchmarks.diagnostics import headline_chart

    rows = headline_chart.bars()
    assert len(rows) == 16  # eight workloads on two backends
    page = (REPO_ROOT / "docs" / "findings" / "2026-11-30-speed-study.md").read_text()
    for bar in rows:
        model, backend = bar.label.split(", ")
        # the row's twinbench / outside code cell, as benchmarks.table printed it
        assert f"| {model} | {backend} | {bar.ratio:.3f} [{bar.low:.3f}, {bar.high:.3f}]" in page
    out = tmp_path / "chart.png"
    headline_chart.draw(rows, out)
    assert out.read_bytes()[:4] == b"\x89PNG"


TURNS_TABLE = REPO_ROOT / "measurements" / "2026-12-01"
TURNS_PAGE = REPO_ROOT / "docs" / "findings" / "2026-12-01-speed-table-in-turns.md"


def test_the_chart_in_turns_draws_each_rows_decision_as_the_findings_table_gives_it(tmp_path):
    from benchmarks import table
    from benchmarks.diagnostics import headline_chart

    files = sorted(TURNS_TABLE.glob("speed-turns*/outside-*.json"))
    bars = headline_chart.decided_bars(files)
    assert len(bars) >= 4  # the rows measured in turns so far
    page = TURNS_PAGE.read_text()
    for bar in bars:
        model, backend = bar.label.split(", ")
        interval = "[no interval yet]" if bar.low != bar.low else f"[{bar.low:.3f}, {bar.high:.3f}]"
        words = table.outcome_words(bar.outcome, 0.05)
        # the row's twinbench / outside code cell, as benchmarks.table printed it
        assert f"| {model} | {backend} | {bar.ratio:.3f} {interval}, {words}" in page
    out = tmp_path / "chart.png"
    headline_chart.draw(bars, out, "in turns", margin=0.05)
    assert out.read_bytes()[:4] == b"\x89PNG"
    assert headline_chart.compared_of(files) == "time per epoch"  # fresh-process pairs
    resident = REPO_ROOT / "measurements" / "2026-12-05" / "speed-static-shape" / "outside.json"
    assert headline_chart.compared_of([resident]) == "time per training step"
    rows = {(r["model"], r["backend"]): r for r in json.loads(resident.read_text())["results"]}
    per_epoch = {k: v for k, v in rows[("mlp", "tensorflow")].items() if k != "compared"}
    for name, row in (("step", rows[("mlp", "torch")]), ("epoch", per_epoch)):
        (tmp_path / f"{name}.json").write_text(json.dumps({"results": [row]}))
    with pytest.raises(SystemExit, match="compare different things"):
        headline_chart.compared_of([tmp_path / "step.json", tmp_path / "epoch.json"])
    with pytest.raises(SystemExit, match="not a row of the sequential engine"):
        headline_chart.decided_bars(
            [REPO_ROOT / "measurements" / "2026-11-30" / "outside-textgen.json"]
        )


def test_idle_stretches_are_the_seconds_a_process_gains_no_cpu_outside_its_turn_waits():
    from benchmarks.diagnostics.idle_stretches import parse, stretches

    def rows(pid, name, ticks_and_waits):
        return [
            f"{i * 0.25:.2f} {pid} {name} {ticks} {wait} S:futex_do_waitx3"
            for i, (ticks, wait) in enumerate(ticks_and_waits)
        ]

    busy = stall = "futex_do_wait"
    holding = [(t, busy) for t in (0, 25, 50)] + [(50, stall)] * 8 + [(75, busy), (100, busy)]
    waiting = [(0, busy)] + [(0, "anon_pipe_read")] * 10 + [(25, busy)]
    log = "\n".join(rows(1, "twinbench.worker", holding) + rows(2, "benchmarks.ports.x", waiting))
    found = stretches(parse(log), min_s=1.0)
    # the process that held its turn and computed nothing for 2 s is found, the one that waited
    # for its turn on the pipe is not
    assert [(s.pid, round(s.seconds, 2)) for s in found] == [(1, 2.0)]
    assert stretches(parse(log), min_s=3.0) == []


def test_mkl_isa_times_each_instruction_setting_in_its_own_pinned_process():
    from benchmarks.diagnostics import mkl_isa

    core = min(os.sched_getaffinity(0))
    rows = [mkl_isa.measure(s, 64, 2, core) for s in ("", "AVX2")]
    assert [r["setting"] for r in rows] == ["(unset)", "AVX2"]  # what each child saw
    assert all(r["cores"] == [core] and r["gflops"] > 0 for r in rows)
    assert "MKL" in rows[0]["banner"]  # MKL's own banner, read from its verbose mode


def test_the_process_census_counts_each_process_under_the_test_that_started_it(tmp_path):
    """The census hook in a stand-in venv: a child process started 'by' a test writes its line,
    the summary puts it under that test's file and names what it imported; uninstall removes
    the hook, and a sitecustomize that is not the hook is never replaced."""
    from benchmarks.diagnostics import process_census

    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    logs = tmp_path / "census"
    process_census.main(["install", str(tmp_path / "venv"), str(logs)])
    env = {**os.environ, "PYTHONPATH": str(site), "PYTEST_CURRENT_TEST": "tests/test_x.py::t"}
    subprocess.run([sys.executable, "-c", "import json"], env=env, check=True)
    text = process_census.summary(logs)
    assert text.startswith("1 processes") and "tests/test_x.py" in text
    process_census.main(["uninstall", str(tmp_path / "venv")])
    assert not (site / "sitecustomize.py").exists()
    (site / "sitecustomize.py").write_text("# someone else's\n")
    with pytest.raises(SystemExit):
        process_census.main(["install", str(tmp_path / "venv"), str(logs)])


def test_the_projection_check_scores_projections_on_the_units_that_came_after(tmp_path, capsys):
    """A/A units far from the margin: most projections decide by the count they named. Units
    sitting on the margin's edge: projections the pool can check almost never do, which is what
    the check exists to show. Files decided under different designs are not pooled."""
    from benchmarks.diagnostics import projection_check as check
    from twinbench.sequential import Design

    rng = np.random.default_rng(5)
    d = Design(margin=0.05, max_seconds=None)
    far = check.check(rng.normal(0.0, 0.03, 400), d, [5], orders=200)[5]
    assert far["checked"] > 100 and far["by_n"] / far["checked"] > 0.65  # 0.78 here
    assert far["checked_2n"] and far["by_2n"] / far["checked_2n"] > far["by_n"] / far["checked"]
    edge = check.check(rng.normal(math.log(1.05), 0.03, 400), d, [5], orders=200)[5]
    assert edge["projections"] > 150
    assert edge["by_n"] <= 0.2 * max(edge["checked"], 1)

    files = []
    for margin in (0.05, 0.10):
        path = tmp_path / f"m{margin}.json"
        series = [{"series": "A/A", "wall_ratios": [1.0, 1.01]}]
        path.write_text(json.dumps({"design": {"margin": margin}, "series": series}))
        files.append(str(path))
    assert check.main(files) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_resident_components_split_a_units_spread_into_state_and_block_noise(tmp_path, capsys):
    """Worker pairs drawn with a lifelong state of sd 0.05 and rounds of sd 0.10 (K = 8): the
    split finds both, and says the state dominates a unit (block noise over K is 0.035). Written
    as a sweep writes them: each worker's steps.json under its repeat folder, warm-up first."""
    from benchmarks.diagnostics import resident_components as rc
    from twinbench.sequential import Design

    design = Design(pairing="resident", resident_blocks=8, turn_ticks=2, warmup_ticks=3)
    rng = np.random.default_rng(5)
    for i in range(400):
        state = rng.normal(0, 0.05)
        rounds = state + rng.normal(0, 0.10, design.resident_blocks)
        b_block = np.full(design.resident_blocks, 0.02)  # B's blocks: 2 steps of 10 ms
        a_block = b_block * np.exp(rounds)
        for backend, blocks in (("torch", a_block), ("tensorflow", b_block)):
            steps = [0.5] * design.warmup_ticks + [s / 2 for s in blocks for _ in range(2)]
            folder = tmp_path / f"backend={backend},cpus=1" / f"repeat-{i}"
            folder.mkdir(parents=True)
            ns = [round(s * 1e9) for s in steps]
            (folder / "steps.json").write_text(json.dumps({"unit": "ns", "per_epoch": [ns]}))
    units = rc.sweep_units(tmp_path, "torch", "tensorflow", design)
    split = rc.components(units["cpus=1"])
    assert split["units"] == 400 and split["blocks"] == 8
    assert split["block_sd"] == pytest.approx(0.10, rel=0.1)
    assert split["block_part_sd"] == pytest.approx(0.10 / math.sqrt(8), rel=0.1)
    assert split["state_sd"] == pytest.approx(0.05, rel=0.2)
    # a worker cut short (fewer steps than its design) is a pair the sweep dropped: left out
    short = tmp_path / "backend=torch,cpus=1" / "repeat-0" / "steps.json"
    short.write_text(json.dumps({"unit": "ns", "per_epoch": [[10**7] * 5]}))
    assert len(rc.sweep_units(tmp_path, "torch", "tensorflow", design)["cpus=1"]) == 399
    # B's blocks are all 20 ms, so a unit's level is log(0.02) + half its mean log ratio: read
    # from steps.json, the ratio moves with the level at a slope of exactly 2, nothing left over
    pairs = rc.sweep_pairs(tmp_path, "torch", "tensorflow", design)["cpus=1"]
    level = rc.level_dependence([u for u, _ in pairs], [x for _, x in pairs])
    assert level["slope"] == pytest.approx(2.0) and level["after_level_sd"] < 1e-6
    assert rc.main([str(tmp_path), "--blocks", "8", "--ticks", "2", "--warmup", "3"]) == 0
    out = capsys.readouterr().out
    assert "| cpus=1 | 399 |" in out and "| cpus=1 | 399 | 2.00 |" in out
    # B's level does not move at all here: A on B has no slope to give
    assert level["a_on_b_slope"] == 0.0


def test_a_ratio_that_moves_with_the_machines_speed_is_told_from_one_that_does_not() -> None:
    """Units whose log ratio is 0.3 x their level plus a spread of 0.05 of their own: the slope
    is found and the spread about it is the units' own; with levels drawn apart from the ratios,
    the slope is near 0 and taking it out leaves the spread as it was."""
    from benchmarks.diagnostics import resident_components as rc

    rng = np.random.default_rng(3)
    levels = rng.normal(-5.0, 0.12, 2000)
    own = rng.normal(0.0, 0.05, levels.size)
    units = [np.full(4, 0.3 * (x + 5.0) + e) for x, e in zip(levels, own, strict=True)]
    moving = rc.level_dependence(units, list(levels))
    assert moving["slope"] == pytest.approx(0.3, abs=0.03)
    assert moving["after_level_sd"] == pytest.approx(0.05, rel=0.05)
    assert moving["unit_sd"] == pytest.approx(math.hypot(0.3 * 0.12, 0.05), rel=0.05)
    apart = rc.level_dependence(units, list(rng.permutation(levels)))
    assert abs(apart["slope"]) < 0.05
    assert apart["after_level_sd"] == pytest.approx(apart["unit_sd"], rel=0.01)
    with pytest.raises(ValueError, match="at least 3"):
        rc.level_dependence(units[:2], list(levels[:2]))


def test_one_side_that_moves_more_with_the_shared_state_is_told_from_unequal_noise() -> None:
    """Both sides share a machine state (sd 0.1). Where A moves 1.3 times as much with it, A's
    level on B's has a slope above 1; where both move alike but A carries more noise of its own
    (which alone tilts the ratio-on-level slope), that slope stays near 1 or below."""
    from benchmarks.diagnostics import resident_components as rc

    rng = np.random.default_rng(5)
    state = rng.normal(0.0, 0.1, 4000)

    def sides(a_gain: float, a_noise: float) -> dict[str, float]:
        a = -5.0 + a_gain * state + rng.normal(0.0, a_noise, state.size)
        b = -5.0 + state + rng.normal(0.0, 0.02, state.size)
        units = [np.full(3, x - y) for x, y in zip(a, b, strict=True)]
        return rc.level_dependence(units, list((a + b) / 2))

    moves_more = sides(1.3, 0.02)
    noisier = sides(1.0, 0.1)
    assert moves_more["a_on_b_slope"] == pytest.approx(1.3 / (1 + 0.02**2 / 0.1**2), rel=0.05)
    assert noisier["slope"] > 0.3  # the first slope alone would call both "A moves more"
    assert noisier["a_on_b_slope"] < 1.05


def test_the_readmes_headline_counts_are_its_tables():
    """README's headline: its chart and its 'N of the 20 rows decided, none slower' are the
    measured table it names, not numbers typed in."""
    import re

    from benchmarks.diagnostics import headline_chart

    readme = (REPO_ROOT / "README.md").read_text()
    headline = readme[readme.index("## Headline result") : readme.index("## Where to go next")]
    (table_file,) = set(re.findall(r"--turns \\\s+(\S+\.json)", headline))
    bars = headline_chart.decided_bars([REPO_ROOT / table_file])
    decided = [b for b in bars if b.outcome != "undecided"]
    said = re.search(r"\*\*(\d+) of the (\d+) rows\s+decided, none slower\*\*", headline)
    assert said and (int(said.group(1)), int(said.group(2))) == (len(decided), len(bars))
    assert not [b for b in bars if b.outcome == "b_faster"]  # "none slower"
    (image,) = re.findall(r"\]\((docs/img/[^)]+\.png)\)", headline)
    assert image in headline.split("--out ")[1] and (REPO_ROOT / image).is_file()


def test_held_out_halves_catch_sessions_pooled_as_one_sample(tmp_path, capsys):
    from benchmarks.diagnostics import sessions_held_out

    # Ten sweeps whose pairs agree closely within each (log sd 0.01) while the host's phase
    # moves each whole sweep (log sd 0.04): pooled, the pairs' interval is far too sure and the
    # halves disagree; one value per sweep, about as often as a valid interval allows.
    rng = np.random.default_rng(3)
    sweeps = [list(np.exp(rng.normal(0.05 + rng.normal(0, 0.04), 0.01, 20))) for _ in range(10)]
    split_rng = np.random.default_rng(0)
    pooled = sessions_held_out.disagreement(sweeps, sessions_held_out.pooled, 300, split_rng)
    per_sweep = sessions_held_out.disagreement(sweeps, sessions_held_out.per_sweep, 300, split_rng)
    assert pooled > 0.3 and per_sweep < 0.1
    # the ratios `--save` writes stand in for the records
    saved = tmp_path / "pairs.json"
    by_sweep = {f"s{i}": s for i, s in enumerate(sweeps)}
    saved.write_text(json.dumps({"mlp cpus=2 torch / tensorflow": by_sweep}))
    assert sessions_held_out.main([str(saved), "--splits", "50"]) == 0
    assert "mlp cpus=2 torch / tensorflow: 10 sweeps, 200 pairs" in capsys.readouterr().out


def test_the_hardware_by_round_check_gives_the_finding_s_figures_from_its_steps(capsys):
    """The committed steps of fifteen deciding sweeps re-derive the disagreement counts that
    docs/findings/2026-12-07-hardware-by-round.md states, before and after the change."""
    from benchmarks.diagnostics import hardware_by_round

    folder = REPO_ROOT / "measurements" / "2026-12-07" / "hardware-by-round"
    hardware_by_round.main(["--from-csv", str(folder / "steps.csv")])
    out = capsys.readouterr().out
    page = (REPO_ROOT / "docs" / "findings" / "2026-12-07-hardware-by-round.md").read_text()
    for form, halves, between in (
        ("welch", "0 of 30", "37 of 138"),
        ("rounds", "0 of 24", "25 of 138"),
    ):
        said = f"{form}: even and odd rounds of one sweep disagree in {halves}; two sweeps"
        assert f"{said} disagree in {between}" in out
        assert f"{between} (" in page
    assert "disagree in 30 of 924 splits" in out and "30 of 924 splits" in page


def test_the_run_intervals_check_gives_the_finding_s_figures_from_its_steps(capsys):
    """The saved steps of 32 runs re-derive what docs/findings/2026-12-07-run-intervals.md
    states: over the steps, odd and even pieces of a run disagree in 10 of 32; over 20 batches'
    medians in none."""
    from benchmarks.diagnostics import run_intervals

    steps = REPO_ROOT / "measurements" / "2026-12-07" / "run-intervals" / "steps.json.gz"
    assert run_intervals.main(["--from", str(steps)]) == 0
    out = capsys.readouterr().out
    page = (REPO_ROOT / "docs" / "findings" / "2026-12-07-run-intervals.md").read_text()
    assert "32 runs of 400 or more steady steps" in out
    for form, width, disagree in (("steps", "0.54", "10 of 32"), ("batches", "4.02", "0 of 32")):
        said = f"interval over the {form}: median half-width +-{width}%; odd and even pieces"
        assert f"{said} disagree in {disagree}" in out
        assert f"±{width}% | {'**' if disagree.startswith('0') else ''}{disagree}" in page
