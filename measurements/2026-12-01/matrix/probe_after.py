"""The kernel probe (twinbench/measure/kernels.py) run afterwards on every run of a sweep that was
launched without measure.kernel_probe=true: the same probe process on each run's own spec.json
(its model, backend, precision, exec mode, cores and settings), its findings written into the
record's `kernels` block with `probed_after_run: true`. Run from the repository root:

    python measurements/2026-12-01/matrix/probe_after.py <sweep dir>
"""

import sys
import time
from pathlib import Path

from twinbench.measure import kernels
from twinbench.result import results

for path in sorted(Path(sys.argv[1]).glob("**/result.json")):
    record = results.read(path)
    if record.get("kernels") or record.get("status") != "ok":
        continue
    if time.time() - path.stat().st_mtime < 60:  # its parent may still be adding to it
        continue
    precision = ((record.get("settings") or {}).get("precision") or {}).get("precision", "float32")
    found = kernels.probe(path.parent, precision=precision)
    found["probed_after_run"] = True
    record = results.read(path)  # as it is now, not as it was before the probe's half minute
    record["kernels"] = found
    results.write_atomic(path, record)
    print(path.parent.name[:90], "|", found.get("summary"), "|", found.get("error", ""), flush=True)
