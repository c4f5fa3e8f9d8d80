"""Is twinbench as fast as the code users write? twinbench vs outside code, interleaved.

    python -m benchmarks.outside [--models mlp cnn ...] [--backends torch tensorflow]
                                 [--pairs 6] [--epochs 3] [--cpus N] [--max-steps S] [--out F]

Outside code: the 2017 benchmark's Keras scripts ported to Keras 3 (benchmarks/ports/keras_*)
for TensorFlow, and the pytorch/examples mnist/main.py loop around the same networks
(benchmarks/ports/torch_examples.py) for torch; both on twinbench's own synthetic arrays and
under the same CPU budget. Each side runs in fresh processes, alternating; per process the
median epoch after the first (validation included where the 2017 script validated; training
only for the text generators, which ran none). Prints twinbench / outside per epoch with the
exact interval of the paired ratios, and a verdict against the goal (twinbench at least 98% of
their speed, beyond its interval). Lengths and pair counts: benchmarks/outside.yaml.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from omegaconf import OmegaConf

from benchmarks import pairs
from twinbench import cpu

SETTINGS = OmegaConf.to_container(OmegaConf.load(Path(__file__).with_name("outside.yaml")))
MODELS = list(SETTINGS["max_steps"])
NO_VALIDATION = {"charlstm", "textgen"}  # their 2017 scripts ran no validation pass


def outside_cmd(backend: str, model: str, cpus: int, epochs: int, max_steps: int | None):
    """The command of the outside-code side, or None where there is no such script."""
    if backend == "torch":
        script = ["benchmarks.ports.torch_examples", model]
    elif model in SETTINGS["keras_scripts"]:
        script = [f"benchmarks.ports.{SETTINGS['keras_scripts'][model]}"]
    else:
        return None
    cmd = [sys.executable, "-m", *script, "--cpus", str(cpus), "--epochs", str(epochs)]
    return cmd + (["--max-steps", str(max_steps)] if max_steps else [])


def outside_sample(cmd: list[str]) -> pairs.Sample:
    out, cpu_s = pairs.json_line_process(cmd)
    return pairs.Sample(pairs.steady(out["epoch_s"]), cpu_s, out["epoch_s"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    p.add_argument("--backends", nargs="+", default=pairs.BACKENDS, choices=pairs.BACKENDS)
    p.add_argument("--pairs", type=int, default=SETTINGS["pairs"])
    p.add_argument("--epochs", type=int, default=SETTINGS["epochs"])
    p.add_argument("--cpus", type=int, default=len(cpu.allowed_cpus()))
    p.add_argument("--max-steps", type=int, help="one cap for every model (default: the yaml's)")
    p.add_argument("--out", type=Path, help="write every pair's figures to this JSON file")
    args = p.parse_args(argv)
    if args.epochs < 2:
        p.error("--epochs must be at least 2: the first epoch is left out")
    print(
        f"twinbench / outside code, seconds per epoch after the first; {args.pairs} interleaved "
        f"pairs per row, {args.epochs} epochs per process, cpus={args.cpus}",
        flush=True,
    )
    results = []
    for backend in args.backends:
        for model in args.models:
            steps = args.max_steps or SETTINGS["max_steps"][model]
            cmd = outside_cmd(backend, model, args.cpus, args.epochs, steps)
            if cmd is None:
                print(f"{backend:<11}{model:<12} no outside script (see benchmarks/outside.yaml)")
                continue
            label = f"{backend:<11}{model:<12}" + (f"({steps} steps) " if steps else "")
            print(label, flush=True)

            def ours(backend=backend, model=model, steps=steps):
                return pairs.twinbench(
                    backend, model, args.cpus, args.epochs, steps, model not in NO_VALIDATION,
                    overrides=SETTINGS["twinbench_overrides"].get(model, ()),
                )  # fmt: skip

            measured = pairs.interleave(
                ours, lambda cmd=cmd: outside_sample(cmd), args.pairs, print
            )
            summary = pairs.summarise(measured)
            print(pairs.line(label, summary), flush=True)
            results.append({"backend": backend, "model": model, "max_steps": steps, **summary})
    if args.out:
        args.out.write_text(json.dumps({"cpus": args.cpus, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
