# docs/findings/2026-12-02-new-host-verdict-flips.md: README command 1 on the new host (AMD Zen 5,
# AVX-512), why its 1-core verdict is the opposite of 2026-12-01's (Zen 3, AVX2), and the noise floor
# here. Run from the repository root with nothing else running.
# 1. README command 1 as it is (04:42-04:48 UTC): compare-1.log; its decisions.json as decisions-compare-1.json;
#    the machine-peak probe it cached on first use as peak-cpus1.json and peak-cpus2.json.
.venv/bin/python run.py +experiment=compare
# 2. One run a side at 1 core with the kernel probe and the speed of light (04:50 UTC):
#    explain-torch-mlp-cpus1.json, explain-tensorflow-mlp-cpus1.json (each run's result.json).
for b in torch tensorflow; do
  .venv/bin/python run.py backend=$b model=mlp cpus=1 epochs=2 max_steps=100 measure.kernel_probe=true measure.speed_of_light=true hydra.run.dir=results/explain-$b
done
# 3. MKL's instruction-set setting, each value in its own process: mkl-isa.log.
.venv/bin/python -m benchmarks.diagnostics.mkl_isa | tee measurements/2026-12-02/compare/mkl-isa.log
# 4. The A/A noise floor of the same workload at 1 and 2 cores, in turns: calibrate-cpus*.log.
.venv/bin/python -m twinbench.cli.calibrate --model mlp --cpus 1 --max-steps 100 --pairs 6 | tee measurements/2026-12-02/compare/calibrate-cpus1.log
.venv/bin/python -m twinbench.cli.calibrate --model mlp --max-steps 100 --pairs 6 | tee measurements/2026-12-02/compare/calibrate-cpus2.log
# 5. README command 1 again, now that the floor is cached: compare-2.log, decisions-compare-2.json;
#    and once more after the TensorFlow validation change (07:07): compare-3.log, decisions-compare-3.json.
.venv/bin/python run.py +experiment=compare hydra.sweep.dir=results/compare-2 2>&1 | tee measurements/2026-12-02/compare/compare-2.log
