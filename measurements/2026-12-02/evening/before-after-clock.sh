# The run clock's change (commit 3dc2f4d: one more CPU read per epoch, at validation start)
# against the commit before it, on the two frameworks' MNIST MLP, which validates every epoch:
# interleaved fresh processes, 6 pairs, 60 steps, 4 epochs, 2 cores (18:02 UTC).
.venv/bin/python -m benchmarks.before_after 8440923 --models mlp --backends torch tensorflow \
  --pairs 6 --steps 60 --epochs 4 2>&1 | tee measurements/2026-12-02/evening/before-after-clock.log
