# README command 1 five times in a row with resident worker pairs as they are now: K = 20 blocks
# a side (conf/decision/default.yaml) and both workers of a pair starting up at once
# (twinbench/launch/turns.py start_together), against the ten runs of the morning (K = 40,
# start-ups one after the other; docs/usage/decisions.md "README command 1, five times each
# design"). The pair cap is raised to 40 so that it does not bind before the 330 s pool.
# (Run at 9cb09d5, before conf/experiment/compare.yaml set `pairing: resident` and `repeats: 40`
# itself: today the same runs are `python run.py +experiment=compare`.)
# Run from a clone's root, nothing else running: `bash commands.sh` (about 30 minutes).
set -u
OUT=${OUT:-measurements/2026-12-05/compare-resident-k20}
for i in 1 2 3 4 5; do
  echo "=== run $i $(date -u +%T)"
  start=$(date +%s)
  .venv/bin/python run.py +experiment=compare +hydra.sweeper.decision.pairing=resident \
    repeats=40 2>&1 | tee "$OUT/run-$i.log"
  echo "=== run $i wall $(( $(date +%s) - start )) s"
done
