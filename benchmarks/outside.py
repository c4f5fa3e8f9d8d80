"""Is twinbench as fast as the code users write? twinbench vs outside code, interleaved.

    python -m benchmarks.outside [--models mlp cnn ...] [--backends torch tensorflow]
                                 [--pairs 6] [--epochs 3] [--cpus N] [--max-steps S [model=S ...]]
                                 [--out F]
                                 [--budget-minutes M]

Outside code: the 2017 benchmark's Keras scripts ported to Keras 3 (benchmarks/ports/keras_*)
for TensorFlow, and the pytorch/examples mnist/main.py loop around the same networks
(benchmarks/ports/torch_examples.py) for torch; for the transformers, keras.io's examples and
nanoGPT's train.py loop (benchmarks/ports/nanogpt_train.py); all on twinbench's own synthetic
arrays and under the same CPU budget. Each side runs in fresh processes, alternating; per
process the median epoch after the first (validation included where the workload validates;
training only where its conf says `validate: false`, as its outside code then runs none).
Prints twinbench / outside per epoch with the exact interval of the paired ratios, and a
verdict against the goal (twinbench at least 98% of their speed, beyond its interval).
Lengths and pair counts: benchmarks/outside.yaml.
"""

from __future__ import annotations

import sys
from pathlib import Path

from omegaconf import OmegaConf

from benchmarks import pairs, rounds, turn_pairs
from frameworks import allocator
from models.catalog import model_config
from twinbench import sequential

SETTINGS = OmegaConf.to_container(OmegaConf.load(Path(__file__).with_name("outside.yaml")))
MODELS = list(SETTINGS["max_steps"])
# The workloads whose source runs no validation pass (conf `validate: false`): the text
# generators' 2017 scripts and nanoGPT, which evaluates apart from training.
NO_VALIDATION = {m for m in MODELS if model_config(m).get("validate") is False}


def outside_cmd(
    backend: str,
    model: str,
    cpus: int,
    epochs: int,
    max_steps: int | None,
    mode: str = allocator.DEFAULT,
):
    """The command of the outside-code side under glibc's allocator `mode`, or None where there
    is no such script."""
    if backend == "torch" and model in SETTINGS["torch_scripts"]:
        script = [f"benchmarks.ports.{SETTINGS['torch_scripts'][model]}"]
    elif backend == "torch":
        script = ["benchmarks.ports.torch_examples", model]
    elif model in SETTINGS["keras_scripts"]:
        script = [f"benchmarks.ports.{SETTINGS['keras_scripts'][model]}"]
    else:
        return None
    cmd = [sys.executable, "-m", *script, "--cpus", str(cpus), "--epochs", str(epochs)]
    return pairs.under_allocator(cmd + (["--max-steps", str(max_steps)] if max_steps else []), mode)


def outside_sample(cmd: list[str]) -> pairs.Sample:
    out, cpu_s = pairs.json_line_process(cmd)
    return pairs.Sample(pairs.steady(out["epoch_s"]), cpu_s, out["epoch_s"])


def main(argv: list[str] | None = None) -> int:
    p = rounds.arguments(__doc__, MODELS, MODELS, SETTINGS["pairs"], SETTINGS["epochs"])
    p.add_argument(
        "--max-steps",
        nargs="+",
        default=[],
        metavar="S | MODEL=S",
        help="steps per epoch: S for every model, MODEL=S for one (default: the yaml's)",
    )
    args = rounds.parse(p, argv)
    try:
        caps = rounds.step_caps(args.max_steps, MODELS)
    except ValueError as e:
        p.error(str(e))
    design = sequential.load_design(max_seconds=None)
    blocks = rounds.resident_designs(p, args, design, MODELS)
    print(
        f"twinbench / outside code, {rounds.compared(args.pairing, 'seconds per epoch')}; up to "
        f"{args.pairs} pairs per row ({args.pairing})"
        + ("" if args.pairing == "resident" else f", {args.epochs} epochs per process")
        + f", cpus={args.cpus}{rounds.allocator_words(args.allocator)}",
        flush=True,
    )
    rows, width = [], max(map(len, args.models)) + 1  # the model column fits imdb_transformer
    mode = args.allocator  # both sides alike
    for backend in args.backends:
        for model in args.models:
            steps = caps.get(model, caps.get("*")) or SETTINGS["max_steps"][model]
            cmd = outside_cmd(backend, model, args.cpus, args.epochs, steps, mode)
            extra = (*SETTINGS["twinbench_overrides"].get(model, ()),
                     *allocator.overrides(mode))  # fmt: skip
            name = f"{backend:<11}{model:<{width}}"
            if cmd is None:
                print(f"{name} no outside script (see benchmarks/outside.yaml)")
                continue
            label = name + (f"({steps} steps) " if steps else "")

            def ours(backend=backend, model=model, steps=steps, extra=extra):
                return pairs.twinbench(
                    backend, model, args.cpus, args.epochs, steps, model not in NO_VALIDATION,
                    overrides=extra,
                )  # fmt: skip

            def in_turns(i: int, backend=backend, model=model, steps=steps, cmd=cmd, extra=extra):
                return turn_pairs.measure_pair(
                    pairs.twinbench_overrides(backend, model, args.cpus, args.epochs, steps, extra),
                    cmd, model not in NO_VALIDATION, twinbench_first=i % 2 == 0,
                    ticks=design.turn_ticks, gap_s=design.turn_gap_s,
                )  # fmt: skip

            def resident_unit(i: int, backend=backend, model=model, extra=extra):
                return turn_pairs.measure_resident_pair(
                    pairs.twinbench_overrides(backend, model, args.cpus, 1, None, extra),
                    lambda n: outside_cmd(backend, model, args.cpus, 1, n, mode),
                    twinbench_first=i % 2 == 0, design=blocks[model],
                )  # fmt: skip

            meta = {"backend": backend, "model": model, "max_steps": steps, "allocator": mode}
            together = {"turns": in_turns, "resident": resident_unit}.get(args.pairing)
            if args.pairing == "resident":
                meta = {"backend": backend, "model": model, "allocator": mode,
                        **rounds.resident_meta(blocks[model])}  # fmt: skip
                label = name
            rows.append(
                rounds.Row(
                    label, ours, lambda cmd=cmd: outside_sample(cmd), meta, together, args.pairing
                )
            )
    results = rounds.run_table(
        rows, args.pairs, args.budget_minutes, lambda s: print(s, flush=True), design=design,
        progress=lambda so_far: rounds.write_out(args.out, args.cpus, so_far),
        even_rounds=args.even_rounds, lock=pairs.measurement_lock_key(),
    )  # fmt: skip
    rounds.write_out(args.out, args.cpus, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
