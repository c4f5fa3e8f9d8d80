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
    # Capped: the steady-state step time leads (TensorFlow 10/8 = 1.25x faster per step) ...
    assert v.metric == "steady-state step time"
    assert v.line.startswith(
        f"mlp cpu2: {TF} faster than {TORCH} by 1.25x on steady-state step time"
    )
    assert f"{TORCH} faster" in v.line and "max_steps=20" in v.line
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
    assert v.line.startswith(f"mlp cpu2: {TF} faster than {TORCH} by")
    assert "the 2017 figure leads" in v.line


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
