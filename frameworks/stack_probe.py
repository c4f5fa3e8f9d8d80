"""Can this interpreter load a backend? `python -m frameworks.stack_probe BACKEND` imports the
backend's model API with the variables its registry entry sets before import and, for Keras,
reads back which runtime Keras chose. It prints one JSON line, {"error": null} or the reason, and
exits 0 either way: the parent (twinbench/stacks/prepare.py) turns a reason into a refusal.

Run in a stack's interpreter before any run of that stack, so a Keras release that cannot load
the backend's runtime is refused up front, not after a sweep has started.
"""

from __future__ import annotations

import importlib
import json
import os
import sys

from frameworks import registry


def check(name: str) -> str | None:
    spec = registry.spec(name)
    os.environ.update(spec.environment)
    try:
        api = importlib.import_module(spec.api)
        version = getattr(api, "__version__", "?")
        if spec.api == "keras":
            chosen = api.backend.backend()
            if chosen != spec.runtime:
                return f"keras {version} runs on {chosen}, not {spec.runtime}"
        importlib.import_module(spec.runtime)
    except Exception as exc:  # any failure to load is the answer, in one line
        first = str(exc).splitlines()[0] if str(exc) else ""
        return f"{type(exc).__name__}: {first}"[:300]
    return None


if __name__ == "__main__":
    print(json.dumps({"backend": sys.argv[1], "error": check(sys.argv[1])}), flush=True)
