"""What Keras-on-TensorFlow's traced training step holds when the batch size is known, and when
it is not.

twinbench's TensorFlow input (frameworks/keras/on_tensorflow.py `_batches`) gives fit batches of
a known size where every batch of the epoch is full, and an unknown one where the epoch ends on a
partial batch. This trains one step of a model each way, from twinbench's own pipeline, and
prints the node count of each traced step (its graph and the functions it calls, such as a
recurrent layer's loop) and the op types whose counts differ.

    python -m benchmarks.diagnostics.traced_step bilstm

docs/findings/2026-12-05-static-batch-shape.md used it.
"""

from __future__ import annotations

import collections
import sys

from benchmarks.diagnostics.budget import tensorflow_workload


def op_counts(model) -> collections.Counter:
    """Op types of every step function fit traced, with the functions their graphs call."""
    found: collections.Counter = collections.Counter()
    # Keras wraps its tf.function in a plain function: the traced one sits in its closure
    cells = [cell.cell_contents for cell in model.train_function.__closure__ or ()]
    traced = [f for f in cells if hasattr(f, "_list_all_concrete_functions")]
    for concrete in (c for f in traced for c in f._list_all_concrete_functions()):
        graph = concrete.graph.as_graph_def()
        found.update(node.op for node in graph.node)
        for function in graph.library.function:
            found.update(node.op for node in function.node_def)
    return found


def main(argv: list[str] | None = None) -> int:
    name = (sys.argv[1:] if argv is None else argv)[0]
    backend, cfg, data = tensorflow_workload(name)  # before the imports below load TensorFlow
    import numpy as np

    from benchdata import batching
    from frameworks.base import TrainPlan

    bs, n = cfg["batch_size"], len(data.x_train)
    order = np.arange(n)[None]
    counts = {}
    # one full batch, or every batch of the epoch with its partial last one (if it has one)
    for label, steps in {
        "batch size known": 1,
        "batch size unknown": batching.steps_per_epoch(n, bs),
    }.items():
        plan = TrainPlan(1, bs, steps, 0, order, 0, "cpu", verbose=False, validate=False)
        backend.apply_settings({})
        model = backend.build(name, cfg, "cpu")
        backend.compile(model, cfg)
        batches = backend._batches(data, plan)
        print(f"{label}: batch dimension {batches.element_spec[0].shape[0]}", flush=True)
        model.fit(batches.take(1), epochs=1, steps_per_epoch=1, verbose=0)
        counts[label] = op_counts(model)
    known, unknown = counts.values()
    print(f"{name}: {sum(known.values())} nodes with the batch size known, "
          f"{sum(unknown.values())} unknown")  # fmt: skip
    for op in sorted(set(known) | set(unknown)):
        if known[op] != unknown[op]:
            print(f"  {op:<24} {known[op]:>5} {unknown[op]:>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
