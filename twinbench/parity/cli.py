"""`python -m twinbench.parity`: certify models (writing their certificates), or, with
`--stage`, run one backend's stage in this process (stages.run_stages starts them)."""

from __future__ import annotations

import sys
from pathlib import Path

from frameworks import registry
from frameworks.tolerances import REFERENCE
from twinbench.config.choices import unknown_choice
from twinbench.config.spec import group_choices
from twinbench.launch import lifeline
from twinbench.parity.certificates import write_certificate
from twinbench.parity.compare import check_all
from twinbench.parity.stages import stage
from twinbench.ui import progress

# The options main reads; `twinbench parity --help` (twinbench/cli/commands.py) describes each.
USAGE = (
    "usage: python -m twinbench.parity [--all | MODEL ...] [--reference BACKEND] "
    "[--backends B1,B2] [--precision float32|bfloat16] [--stack NAME] [--quiet]\n"
    "Certify that each model is the same network on every backend (results/parity/); "
    "`twinbench parity --help` describes each option."
)


def main(argv: list[str]) -> int:
    if "-h" in argv or "--help" in argv:  # not a model: it was refused as one
        print(USAGE)
        return 0
    if argv and argv[0] == "--stage":
        lifeline.die_with_parent()  # first: a stage never outlives the certifying process
        framework, model_names, workdir = argv[1:4]  # models: comma-separated
        reference = argv[argv.index("--reference") + 1] if "--reference" in argv else REFERENCE
        model_stage = None
        if "--precision" in argv:  # bfloat16 parity's stage (precision_stage.py)
            from functools import partial

            from twinbench.parity import precision_stage

            precision = argv[argv.index("--precision") + 1]
            model_stage = partial(precision_stage.stage_model, precision=precision)
        if "--spread" in argv:  # the forward spread over seeds (spread.py)
            from functools import partial

            from twinbench.parity import spread

            seeds = int(argv[argv.index("--spread") + 1])
            model_stage = partial(spread.stage_model, seeds=seeds)
        stage(
            framework,
            model_names.split(","),
            Path(workdir),
            reference,
            "--draws-only" in argv,
            model_stage,
        )
        return 0
    progress.cli_logging("--quiet" in argv, ("twinbench.parity",))
    given = list(argv)
    argv = [arg for arg in argv if arg != "--quiet"]
    from twinbench.config import checks as cli

    options = {}
    for flag in ("--reference", "--backends", "--precision", "--stack"):
        if flag in argv:
            at = argv.index(flag)
            if at + 1 >= len(argv):
                cli.fail(f"{flag} needs a value")
            options[flag] = argv[at + 1]
            del argv[at : at + 2]
    reference = options.get("--reference", REFERENCE)
    chosen = options["--backends"].split(",") if "--backends" in options else None
    for name in [reference, *(chosen or [])]:
        if name not in registry.names():
            cli.fail(str(unknown_choice("backend", name, registry.names())))
    names = group_choices("model") if argv == ["--all"] or not argv else argv
    unknown = [name for name in names if name not in group_choices("model")]
    if unknown:
        cli.fail(f"{unknown_choice('model', unknown[0], group_choices('model'))} (or --all)")
    if reference in (chosen or []):  # it would be compared with itself
        cli.fail(
            f"--backends names the reference backend '{reference}': it is what the others are "
            "compared against (--reference chooses another)"
        )
    precision = options.get("--precision", "float32")
    if precision not in ("float32", "bfloat16"):
        cli.fail(f"unknown --precision '{precision}'; choose float32 or bfloat16")
    stack = None
    if "--stack" in options:
        from twinbench.parity.on_stack import run_on_stack

        try:
            backends = list(dict.fromkeys([reference, *(chosen or registry.names())]))
            stack = run_on_stack(options["--stack"], given, backends)
        except cli.ConfigError as exc:
            cli.fail(str(exc))
    if stack is not None and precision == "bfloat16":
        cli.fail("--stack certifies float32 parity; bfloat16 parity runs on the project's stack")
    lifeline.stop_on_signals()
    try:
        if precision == "bfloat16":
            return _certify_bfloat16(names, chosen, reference)
        return _certify(names, chosen, reference, stack)
    except lifeline.Interrupted as exc:
        print(
            f"twinbench parity: interrupted by {exc}: the stage in progress was stopped and its "
            "temporary files removed; certificates already written are kept",
            file=sys.stderr,
            flush=True,
        )
        return 128 + exc.signum


def _certify(
    names: list[str], chosen: list[str] | None, reference: str, stack: dict | None = None
) -> int:
    failed = 0
    for name in names:
        for report in check_all(name, chosen, reference):
            path = write_certificate(report, stack=stack)
            layers = report.forward_layers
            per_layer = (
                f"layers up to {max(layers['layers'].values(), default=0.0):.3g} roundings "
                f"(bound {layers['bound']:.3g})  "
                if layers and layers.get("bound")
                else ""
            )
            print(
                f"{name:<12} {report.backend:<12} {'PASS' if report.passed else 'FAIL'}  "
                f"forward diff {report.forward_max_abs_diff:.2g}  {per_layer}"
                f"params {report.params[report.backend]:,}  -> {path}"
            )
            for failure in report.failures:
                print(f"    {failure}")
            failed += not report.passed
    return 1 if failed else 0


def _certify_bfloat16(names: list[str], chosen: list[str] | None, reference: str) -> int:
    """bfloat16 parity (precision_parity.py) of each model on each backend: a line per pair, its
    failures, and its "precision" block in the pair's certificate."""
    from twinbench.config.precision import bf16_units
    from twinbench.machine.environment import cpu_flags
    from twinbench.parity.certificates import record_precision
    from twinbench.parity.precision_parity import check_many

    units = bf16_units(cpu_flags())
    # Parity checks the math, not the speed: on a CPU without bf16 units the libraries convert
    # around float32 kernels, which rounds exactly as bf16 units would. Runs need
    # allow_emulated_bf16=true there; parity runs either way and says which it was.
    if units:
        print(f"bfloat16 parity: this CPU has bfloat16 units ({', '.join(units)})")
    else:
        print(
            "bfloat16 parity: this CPU has no bfloat16 units: bf16 is emulated by conversions "
            "around float32 kernels (the same rounding, not the speed), which parity may check"
        )
    failed = 0
    for name, reports in check_many(names, chosen, reference).items():
        if reports:  # the reference's own bf16 against its float32, the same in every pair
            own = reports[0].forward[f"{reference} vs float32"]
            print(
                f"{name:<12} {reference:<12} bfloat16 (the reference)  |d log p| vs float32 "
                f"{own['max_abs_log_prob_diff']:.2g} (bound {own['bound']:.2g})"
            )
        for report in reports:
            path = record_precision(report)
            halves = report.forward["halves"]
            own = report.forward[f"{report.backend} vs float32"]
            verdict = "PASS" if report.passed else "FAIL"
            print(
                f"{name:<12} {report.backend:<12} bfloat16 {verdict}  "
                f"{len(report.product_ops[report.backend])} products traced, loss "
                f"{report.loss_dtype[report.backend]}  |d log p| vs {reference} bf16 "
                f"{halves['max_abs_log_prob_diff']:.2g} (bound {halves['bound']:.2g}), "
                f"vs float32 {own['max_abs_log_prob_diff']:.2g} (bound {own['bound']:.2g})"
                f"  -> {path or 'no float32 certificate to annotate'}"
            )
            for failure in report.failures:
                print(f"    {failure}")
            failed += not report.passed
    return 1 if failed else 0
