"""The verdict leads the report and the terminal, and cannot flip silently: where training time
and steady state disagree, the line says so and names the budget part that makes them."""

from __future__ import annotations

from analysis.compute import pipeline, verdict
from analysis.load.table import runs_table
from analysis.render import report, terminal
from frameworks import registry

from .test_analysis_fakes import record, write


def _budget(first: float, steady: float, validation: float = 0.125) -> dict:
    parts = {
        "first_step": first,
        "warmup": 0.0625,
        "steady": steady,
        "steady_spread": 0.0,
        "remainder": 0.0,
        "validation": validation,
    }
    return {"parts_s": parts, "train_time_s": sum(parts.values())}


def _pair(root, *, tf_first: float, max_steps: int | None = 20):
    """torch: 0.25 s start-up, 10 ms steps; TensorFlow: `tf_first` start-up, 8 ms steps."""
    for backend, first, step in (("torch", 0.25, 0.010), ("tensorflow", tf_first, 0.008)):
        b = _budget(first, 18 * step)
        rec = record(backend, 2, [b["train_time_s"]], steady_step=step)
        rec["budget"] = b
        rec["config"]["max_steps"] = max_steps
        write(root, f"mlp_{backend}", rec)
    return runs_table([root])


# The verdict names each backend by its registry label.
TF, TORCH = registry.spec("tensorflow").label, registry.spec("torch").label


def test_a_capped_run_whose_verdicts_disagree_gets_the_explanation_line(tmp_path):
    runs = _pair(tmp_path, tf_first=2.0)
    (v,) = verdict.verdicts(runs)
    # Capped: the steady-state step time leads (TensorFlow 10/8 = 1.25x faster per step); single
    # runs give no interval, so nothing is decided: the point ratio is stated as such ...
    assert v.metric == "steady-state step time"
    assert v.line.startswith(
        f"mlp cpu2: undecided between {TORCH} and {TF} on steady-state step time (point ratio: "
        f"{TF} 1.25x faster; single runs: no interval)"
    )
    assert f"point ratio: {TORCH}" in v.line and "max_steps=20" in v.line
    # ... and TensorFlow's 2 s first step makes torch win on training time: said, with the cause.
    share = 2.0 / (2.0 + 0.0625 + 18 * 0.008 + 0.125)
    torch_share = 0.25 / (0.25 + 0.0625 + 0.18 + 0.125)
    assert v.disagreement == (
        f"mlp cpu2: training time and steady state disagree: {TF}'s first step is "
        f"{share:.0%} of its training time ({TORCH}'s: {torch_share:.0%})"
        ": a start-up effect (tracing or compilation), not throughput"
    )


def test_agreeing_verdicts_get_no_explanation_and_full_runs_lead_with_training_time(tmp_path):
    runs = _pair(tmp_path, tf_first=0.25, max_steps=None)
    (v,) = verdict.verdicts(runs)
    assert v.disagreement is None
    assert v.metric == "training time"
    assert v.line.startswith(f"mlp cpu2: undecided between {TORCH} and {TF} on training time")
    assert f"(point ratio: {TF}" in v.line and "the 2017 figure leads" in v.line


def test_the_verdict_opens_the_terminal_summary_and_the_report(tmp_path):
    runs = _pair(tmp_path / "runs", tf_first=2.0)
    an = pipeline.analyze(runs, pipeline.Options(inputs=[tmp_path / "runs"]))
    text = terminal.render(an)
    assert text.splitlines()[0].startswith("verdict")
    assert "! mlp cpu2: training time and steady state disagree" in text
    html = report.write(an, tmp_path / "out").read_text()
    assert html.index('id="verdict"') < html.index('id="relative"')
    assert "a start-up effect" in html
    assert 'id="budget"' in html  # the stacked bars of the budget


def _repeats(root, torch_steps: list[float], tf_steps: list[float]):
    """Full runs (no max_steps), one record per repeat, steady step = each repeat's epoch."""
    for backend, steps in (("torch", torch_steps), ("tensorflow", tf_steps)):
        for i, step in enumerate(steps):
            rec = record(backend, 2, [step * 100], repeat=i, repeats=len(steps), steady_step=step)
            rec["config"]["max_steps"] = None
            write(root, f"mlp_{backend}/repeat-{i}", rec)
    return runs_table([root])


def test_only_an_interval_decides_the_verdict(tmp_path):
    # Six repeats a side, torch 20% faster throughout: the interval excludes 1 and decides.
    clear = _repeats(tmp_path / "clear", [0.010, 0.0101, 0.0099, 0.0100, 0.0102, 0.0098],
                     [0.012, 0.0121, 0.0119, 0.0120, 0.0122, 0.0118])  # fmt: skip
    (v,) = verdict.verdicts(clear)
    assert v.line.startswith(f"mlp cpu2: {TORCH} faster than {TF} by 1.20x on training time")
    assert "95% CI" in v.line and "undecided" not in v.line
    # The same medians with repeats that overlap widely: the interval holds 1, nothing decided.
    noisy = _repeats(tmp_path / "noisy", [0.010, 0.016, 0.007, 0.010, 0.014, 0.008],
                     [0.012, 0.009, 0.016, 0.012, 0.008, 0.015])  # fmt: skip
    (v,) = verdict.verdicts(noisy)
    assert v.line.startswith(f"mlp cpu2: undecided between {TORCH} and {TF} on training time")
    assert "includes 1" in v.line


def test_a_verdict_line_names_a_faster_side_only_beyond_the_decision_margin(tmp_path):
    # Torch 3% faster, tightly: the interval excludes 1 but lies inside +-5%, so the two are
    # equivalent at the decision engine's margin (conf/decision/default.yaml), not "torch faster".
    close = _repeats(tmp_path / "close", [0.0100, 0.01001, 0.00999, 0.0100, 0.01002, 0.00998],
                     [0.0103, 0.01031, 0.01029, 0.0103, 0.01032, 0.01028])  # fmt: skip
    (v,) = verdict.verdicts(close)
    assert v.line.startswith(f"mlp cpu2: {TORCH} and {TF} equivalent within +-5% on training time")
    assert "faster" not in v.line.split("beside it")[0]
    # Torch about 5% faster, the interval across the margin: undecided, saying which side it
    # puts ahead and by how much.
    edge = _repeats(tmp_path / "edge", [0.0100, 0.0102, 0.0098, 0.0100, 0.0103, 0.0097],
                    [0.0105, 0.0106, 0.0104, 0.0105, 0.0107, 0.0103])  # fmt: skip
    (v,) = verdict.verdicts(edge)
    assert v.line.startswith(f"mlp cpu2: undecided between {TORCH} and {TF} on training time")
    assert f": {TORCH} faster by " in v.line and "crosses the +-5% margin" in v.line
