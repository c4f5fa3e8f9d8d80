"""Does twinbench slow down what it measures? twinbench vs a bare loop, A/B interleaved.

    python -m benchmarks.overhead [--models mlp cnn] [--backends torch tensorflow]
                                  [--pairs 12] [--steps S [MODEL=S ...]] [--epochs 3] [--cpus N]
                                  [--out F] [--budget-minutes M]

For each backend x model, `pairs` times: one twinbench run (run.py, fresh worker) and one bare
run (benchmarks/bare_loop.py, fresh process), alternating which goes first, so drift on a shared
machine hits both alike. Both train the same network on the same data for `steps` steps per
epoch; the first epoch (tracing, warm-up) is dropped and the rest compared as training time per
epoch. Prints the median of the pairs' ratios twinbench / bare with its exact interval
(order statistics of the paired ratios), the same for CPU time (sequential pairs: user + system
of the whole process, start-up included on both sides; pairs in turns: the CPU of the spans the
epochs time, the training parts), and the verdict against the goal: twinbench within 2% of the
bare loop, decided only beyond the interval.
"""

from __future__ import annotations

import sys

from benchmarks import pairs, rounds, turn_pairs
from frameworks import allocator
from models import catalog
from twinbench import sequential

NO_AUGMENTATION = ("model.augment=null",)  # the bare loop trains on the arrays as they are


def bare_cmd(backend: str, model: str, cpus: int, steps: int, epochs: int) -> list[str]:
    return [
        sys.executable, "-m", "benchmarks.bare_loop", backend, model, str(cpus), str(steps),
        str(epochs),
    ]  # fmt: skip


def bare(
    backend: str, model: str, cpus: int, steps: int, epochs: int, mode: str = allocator.DEFAULT
) -> pairs.Sample:
    cmd = pairs.under_allocator(bare_cmd(backend, model, cpus, steps, epochs), mode)
    out, cpu_s = pairs.json_line_process(cmd)
    return pairs.Sample(pairs.steady(out["epoch_s"]), cpu_s, out["epoch_s"])


def main(argv: list[str] | None = None) -> int:
    p = rounds.arguments(__doc__, ["mlp", "cnn"], None, pairs=12, epochs=3)
    p.add_argument(
        "--steps",
        nargs="+",
        default=["100"],
        metavar="S | MODEL=S",
        help="training steps per epoch: S for every model, MODEL=S for one (default: 100)",
    )
    args = rounds.parse(p, argv)
    try:
        caps = rounds.step_caps(args.steps, catalog.names(), "--steps")
    except ValueError as e:
        p.error(str(e))
    design = sequential.load_design(max_seconds=None)
    blocks = rounds.resident_designs(p, args, design, catalog.names())
    shape = (
        "" if args.pairing == "resident"
        else f", {' '.join(args.steps)} steps x {args.epochs - 1} timed epochs"
    )  # fmt: skip
    print(
        f"twinbench / bare loop, {rounds.compared(args.pairing, 'training time per epoch')}; "
        f"up to {args.pairs} pairs per row ({args.pairing}){shape}, cpus={args.cpus}"
        f"{rounds.allocator_words(args.allocator)}",
        flush=True,
    )
    rows, width = [], max(map(len, args.models)) + 1  # the model column fits imdb_transformer
    mode = args.allocator  # both sides alike
    for backend in args.backends:
        for model in args.models:
            steps = caps.get(model, caps.get("*", 100))
            extra = (*(NO_AUGMENTATION if model == "cifar10_cnn" else ()),
                     *allocator.overrides(mode))  # fmt: skip

            def ours(backend=backend, model=model, steps=steps, extra=extra):
                return pairs.twinbench(
                    backend,
                    model,
                    args.cpus,
                    args.epochs,
                    steps,
                    validation=False,
                    overrides=extra,
                )

            def theirs(backend=backend, model=model, steps=steps):
                return bare(backend, model, args.cpus, steps, args.epochs, mode)

            def in_turns(i: int, backend=backend, model=model, steps=steps, extra=extra):
                return turn_pairs.measure_pair(
                    pairs.twinbench_overrides(
                        backend, model, args.cpus, args.epochs, steps, extra
                    ),
                    pairs.under_allocator(
                        bare_cmd(backend, model, args.cpus, steps, args.epochs), mode
                    ),
                    validation=False, twinbench_first=i % 2 == 0,
                    ticks=design.turn_ticks, gap_s=design.turn_gap_s,
                )  # fmt: skip

            def resident_unit(i: int, backend=backend, model=model, extra=extra):
                return turn_pairs.measure_resident_pair(
                    pairs.twinbench_overrides(backend, model, args.cpus, 1, None, extra),
                    lambda n: pairs.under_allocator(
                        bare_cmd(backend, model, args.cpus, n, 1), mode
                    ),
                    twinbench_first=i % 2 == 0, design=blocks[model],
                )  # fmt: skip

            meta = {"backend": backend, "model": model, "steps": steps, "allocator": mode}
            label = f"{backend:<11}{model:<{width}}({steps} steps) "
            together = {"turns": in_turns, "resident": resident_unit}.get(args.pairing)
            if args.pairing == "resident":
                meta = {"backend": backend, "model": model, "allocator": mode,
                        **rounds.resident_meta(blocks[model])}  # fmt: skip
                label = f"{backend:<11}{model:<{width}}"
            rows.append(rounds.Row(label, ours, theirs, meta, together, args.pairing))
    results = rounds.run_table(
        rows, args.pairs, args.budget_minutes, lambda s: print(s, flush=True), design=design,
        progress=lambda so_far: rounds.write_out(args.out, args.cpus, so_far),
        even_rounds=args.even_rounds, lock=pairs.measurement_lock_key(),
    )  # fmt: skip
    rounds.write_out(args.out, args.cpus, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
