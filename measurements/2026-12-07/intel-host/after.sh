# After commands.sh: one run a side at 1 core with the speed of light and no kernel probe (whose
# logging slows every call), sol-*-mlp-cpus1.json. (spread.sh and bf16.sh follow, with their outputs.)
set -euo pipefail
M=measurements/2026-12-07/intel-host
for b in torch tensorflow; do
  .venv/bin/python run.py backend=$b model=mlp cpus=1 epochs=2 max_steps=100 \
    measure.speed_of_light=true hydra.run.dir=results/intel-sol-$b 2>&1 | tail -6
  cp results/intel-sol-$b/result.json $M/sol-$b-mlp-cpus1.json
done


