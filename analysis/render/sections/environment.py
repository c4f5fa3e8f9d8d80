"""The section on the machines, and the threads each run requested and read back."""

from __future__ import annotations

from analysis.compute.pipeline import Analysis
from analysis.render.htmlkit import Col, table_html
from analysis.render.page import Page, Section

ID = "environment"


def write(page: Page, an: Analysis) -> None:
    page.add(f'<h2 id="{ID}">Environment</h2>')
    machines = an.machines
    cols = [Col(c, c.replace("_", " ")) for c in machines.columns]
    page.add(table_html(machines, cols))
    page.csv(machines, "machines")
    if not an.threads.empty:
        page.add("<h3>Threads: requested and read back</h3>")
        page.add(
            "<p>Each run pins its cores and sets its thread pools before the framework "
            "loads, then reads them back. Thread pools do not see a cgroup CPU quota: a "
            "quota below the cores would throttle the run silently, so it is shown.</p>"
        )
        page.add(
            table_html(
                an.threads,
                [
                    Col("machine", "machine"),
                    Col("config_label", "configuration"),
                    Col("cpus", "cores", "g"),
                    Col("threads_intra_requested", "intra requested", "g"),
                    Col("threads_intra_actual", "intra actual", "g"),
                    Col("threads_inter_requested", "inter requested", "g"),
                    Col("threads_inter_actual", "inter actual", "g"),
                    Col("threads_verified", "verified", "bool"),
                    Col("cgroup_cpu_quota", "cgroup quota", "g"),
                    Col("quota_below_cores", "quota below cores", "bool"),
                ],
                lambda r: (
                    "unstable" if r["threads_verified"] is False or r["quota_below_cores"] else ""
                ),
            )
        )
        page.csv(an.threads, "threads")


SECTION = Section(ID, "environment", write)
