"""The report's sections in page order: the one list the page and its navigation both follow.

To add a section: write it (a Section: its heading's id, its link text, the function that writes
it; analysis/render/page.py) and put it in SECTIONS where it belongs on the page. The navigation
derives from this list; nothing else needs to know.
"""

from __future__ import annotations

from analysis.compute import api_runtime, layers, machine_peak, speed_of_light
from analysis.render import explain, scaling_report
from analysis.render.page import Section
from analysis.render.sections import (
    attention,
    decisions,
    environment,
    framework,
    hardware,
    inside_runs,
    legacy,
    parity,
    peak,
    precision_exec,
    relative,
    release_history,
    runs,
    software,
    startup,
)

SECTIONS: list[Section] = [
    Section("verdict", "verdict", explain.section_verdict),  # the verdict leads the report
    decisions.SECTION,  # a deciding sweep's outcomes, beside the verdict
    relative.SECTION,
    legacy.SECTION,
    framework.SECTION,
    Section("api-runtime", "API vs runtime", api_runtime.section),
    hardware.SECTION,
    Section("scaling-model", "scaling", scaling_report.section),
    software.SECTION,
    inside_runs.SECTION,
    peak.SECTION,
    Section("machine-peak", "machine peak", machine_peak.section),
    Section("speed-of-light", "speed of light", speed_of_light.section),
    startup.SECTION,
    precision_exec.SECTION,
    release_history.SECTION,  # the same workloads across framework releases (conf/stack/)
    attention.SECTION,  # fused vs explicit attention, beside the other in-model switches
    Section("budget", "budget", explain.section_budget),
    Section("layers", "layers", layers.section),
    parity.SECTION,
    environment.SECTION,
    # the kernels each configuration ran: an <h3 id="kernels"> under the environment, no link
    Section("kernels", None, machine_peak.section_kernels),
    runs.FAILED,
    runs.RUNS,
]


def nav(present: set[str], sections: list[Section]) -> list[tuple[str, str]]:
    """(id, link text) of every section with a link whose heading is on the page (no dead link),
    in the list's order."""
    return [(s.id, s.nav) for s in sections if s.nav is not None and s.id in present]
