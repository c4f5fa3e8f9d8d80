"""The kernel probe once more on a finished run whose probe passed its old 600 s limit (Keras on
torch, gpt, exec=compiled: the probe re-compiles). Prints the probe's findings as one JSON line;
the run's own record is left as it was. Run from the repository root:

    python measurements/2026-12-01/matrix-last/reprobe.py <run dir> <timeout seconds>
"""

import json
import sys
import time
from pathlib import Path

from twinbench.measure import kernels
from twinbench.result import results

run_dir, timeout_s = Path(sys.argv[1]), float(sys.argv[2])
record = results.read(run_dir / "result.json")
precision = ((record.get("settings") or {}).get("precision") or {}).get("precision", "float32")
t0 = time.monotonic()
found = kernels.probe(run_dir, timeout_s=timeout_s, precision=precision)
found["probe_wall_s"] = round(time.monotonic() - t0, 1)
print(json.dumps(found))
