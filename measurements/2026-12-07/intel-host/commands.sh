# docs/findings/2026-12-07-intel-host.md: README command 1 on a third host type (Intel Xeon,
# family 6 model 207, AVX-512 with avx512_bf16, no AMX), each library's GEMM there, and why the
# verdicts differ from the AMD hosts'. Run from the repository root with nothing else running;
# every file named below lands in measurements/2026-12-07/intel-host/.
set -euo pipefail
M=measurements/2026-12-07/intel-host
grep -m1 "model name" /proc/cpuinfo | tee $M/cpu.txt
grep -m2 -E "^(cpu family|model)\s" /proc/cpuinfo | tee -a $M/cpu.txt
grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E 'avx|amx|fma|vnni' | tr '\n' ' ' | tee -a $M/cpu.txt
# 1. README command 1 on first use (no peak, certificate or noise floor cached): compare-1.log,
#    its decisions.json as decisions-compare-1.json, the peaks it cached as peak-cpus*.json.
.venv/bin/python run.py +experiment=compare hydra.sweep.dir=results/intel-sweeps/intel-compare-1 2>&1 | tee $M/compare-1.log
# 2. One run a side at 1 core with the kernel probe and the speed of light: explain-*-mlp-cpus1.json.
for b in torch tensorflow; do
  .venv/bin/python run.py backend=$b model=mlp cpus=1 epochs=2 max_steps=100 measure.kernel_probe=true \
    measure.speed_of_light=true hydra.run.dir=results/intel-explain-$b 2>&1 | tail -5
  cp results/intel-explain-$b/result.json $M/explain-$b-mlp-cpus1.json
done
# 3. MKL's instruction-set setting, each value in its own process: mkl-isa.log.
.venv/bin/python -m benchmarks.diagnostics.mkl_isa | tee $M/mkl-isa.log
# 4. README command 1 four more times, back to back: compare-2..5.log, decisions-compare-2..5.json.
for i in 2 3 4 5; do
  .venv/bin/python run.py +experiment=compare hydra.sweep.dir=results/intel-sweeps/intel-compare-$i 2>&1 | tee $M/compare-$i.log
done
# 5. The five sweeps' decisions and the peaks run 1 cached; the table of decisions; the five
#    sweeps read together, one value a sweep: analysis.txt. Then after.sh.
for i in 1 2 3 4 5; do cp results/intel-sweeps/intel-compare-$i/decisions.json $M/decisions-compare-$i.json; done
for c in 1 2; do cp ~/.cache/twinbench/peak/*_x2-cpus$c.json $M/peak-cpus$c.json; done
.venv/bin/python $M/summarise.py $M
.venv/bin/python -m analysis results/intel-sweeps --out results/intel-sweeps-report | tee $M/analysis.txt
