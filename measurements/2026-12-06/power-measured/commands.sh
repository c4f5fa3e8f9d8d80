# Issue 40 item 3: can README command 1 decide its 2-core count in about 4 minutes at all? The
# resident design's simulation (twinbench/launch/resident_power.py, through the sweep's own
# Series and unit_of) with the machine measured on 2026-12-06 (Zen 5, 2 cores, torch mlp):
# a unit's log ratio spread 0.060-0.087 in README command 1's five runs and 0.062-0.103 in the
# A/A campaign; the components diagnostic put the pair's state at 0.053-0.081 and a 5-step
# block's noise at 0.12-0.15; so a process' state 0.05 (two of them: 0.071) and a block 0.13
# (0.029 over 20), a unit about 0.076. A 2-core unit cost about 9-11 s (205-241 s over 19-27
# units), 3.2 s of it the 20 rounds: 7.5 s of start-ups. The true effect: 7.5% (the five runs'
# pooled 1.075). 240 s is about what the 2-core count got of the 330 s pool once 1 core
# decided. Run from the repository root: `sh commands.sh > power.txt` (about a minute).
P=".venv/bin/python -m twinbench.launch.resident_power --blocks 20 --block-sd 0.13 --sequences 200 --max-pairs 200"
echo "== the measured machine, one core count's share of README command 1 and more"
$P --process-sd 0.05 --startup-s 7.5 --budget-s 240 --effects 0 0.05 0.075 0.10
for budget in 480 720 960; do
  echo "== the measured machine, $budget s"
  $P --process-sd 0.05 --startup-s 7.5 --budget-s $budget --effects 0.075 | tail -1
done
echo "== half the process state, 240 s"
$P --process-sd 0.025 --startup-s 7.5 --budget-s 240 --effects 0.075 | tail -1
echo "== start-ups of 1.5 s a unit (a pre-imported worker), 240 s"
$P --process-sd 0.05 --startup-s 1.5 --budget-s 240 --effects 0.075 | tail -1
