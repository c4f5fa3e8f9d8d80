#!/bin/bash
# README command 1, five times back to back on this host: the first verbatim on a fresh clone
# (install included), then four more from the same checkout.
# From the root of a fresh clone (here of ffe5a8f, 2026-12-07 22:50-23:19 UTC), nothing else
# running; screens compare-*.log (progress lines one per line), decisions-compare-*.json.
S=measurements/2026-12-07/amx-host
mkdir -p $S
date -u +%H:%M:%S > $S/times.txt
bash -c 'python3 -m venv .venv && .venv/bin/pip install -q -r requirements.txt && .venv/bin/python run.py +experiment=compare hydra.sweep.dir=results/amx-compare-1' > $S/compare-1.log 2>&1
echo "1 rc $? $(date -u +%H:%M:%S)" >> $S/times.txt
for i in 2 3 4 5; do
  .venv/bin/python run.py +experiment=compare hydra.sweep.dir=results/amx-compare-$i > $S/compare-$i.log 2>&1
  echo "$i rc $? $(date -u +%H:%M:%S)" >> $S/times.txt
done
for i in 1 2 3 4 5; do cp results/amx-compare-$i/decisions.json $S/decisions-compare-$i.json; done
# Then (00:38-00:43 UTC, the same checkout moved to 1039ffc, nothing else running) three runs
# with glibc's allocator set to retain on both sides: compare-retain-*.log, decisions beside them.
for i in 1 2 3; do
  .venv/bin/python run.py +experiment=compare backend.allocator=retain \
    hydra.sweep.dir=results/amx-compare-retain-$i > $S/compare-retain-$i.log 2>&1
done
