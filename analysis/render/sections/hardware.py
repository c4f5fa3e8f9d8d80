"""The section on the hardware effect: speed-up and efficiency with cores, and where the
backends scale differently."""

from __future__ import annotations

from analysis.compute import effects, layers_by_cores
from analysis.compute.pipeline import Analysis
from analysis.render import scaling_report
from analysis.render.htmlkit import Col, esc, table_html
from analysis.render.page import Page, Section
from analysis.render.sections.common import unit, verdict_class

ID = "hardware"


HW_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("backend", "framework"),
    Col("settings_label", "settings"),
    Col("cpus", "cores", "g"),
    Col("time", "time (s)", "s"),
    Col("speedup", "speed-up", "x"),
    Col("speedup_ci_low", "CI low", "x"),
    Col("speedup_ci_high", "CI high", "x"),
    Col("speedup_sweeps", "sweeps (above 1: one value each)", "g"),
    Col("speedup_rounds", "rounds paired (0: runs not paired)", "g"),
    Col("efficiency", "efficiency", "pct"),
]
GAP_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("reference_cpus", "from cores", "g"),
    Col("cpus", "to cores", "g"),
    Col("reference", "reference"),
    Col("other", "other"),
    Col("reference_speedup", "reference speed-up", "x"),
    Col("other_speedup", "other speed-up", "x"),
    Col("reference_efficiency", "reference efficiency", "pct"),
    Col("other_efficiency", "other efficiency", "pct"),
    Col("speedup_ratio", "reference / other speed-up", "x"),
    Col("verdict", "verdict"),
]


LAYER_COLS = [
    Col("workload", "workload"),
    Col("backend", "framework"),
    Col("settings_label", "settings"),  # variants are series of their own (layers_by_cores)
    Col("layer", "layer"),
    Col("few_cpus", "fewest cores", "g"),
    Col("most_cpus", "most cores", "g"),
    Col("few_ms", "ms at the fewest", "s"),
    Col("most_ms", "ms at the most", "s"),
    Col("speedup", "speed-up", "x"),
]
GPU_COLS = [
    Col("workload", "workload"),
    Col("backend", "framework"),
    Col("gpu_config", "GPU run"),
    Col("cpus", "beside cores", "g"),
    Col("cpu_time", "CPU time (s)", "s"),
    Col("gpu_time", "GPU time (s)", "s"),
    Col("gpu_speedup", "GPU speed-up", "x"),
    Col("gpu_speedup_ci_low", "CI low", "x"),
    Col("gpu_speedup_ci_high", "CI high", "x"),
    Col("cpu_cost", "CPU cost", "g"),
    Col("gpu_cost", "GPU cost", "g"),
    Col("cpu_over_gpu_cost", "CPU cost / GPU cost", "x"),
]


def write_gpu(page: Page, an: Analysis) -> None:
    """The GPU runs beside the CPU core counts of their workload (analysis/compute/gpu_beside)."""
    rows = an.gpu_beside
    if rows.empty:
        page.not_measured.append(
            ("GPU beside the cores", "no workload has both a GPU (device=cuda) and a CPU run")
        )
        return
    page.add('<h3 id="gpu-beside-cores">The GPU beside the cores</h3>')
    first = rows.iloc[0]
    page.add(
        "<p>Each GPU run beside every core count of its workload and framework: GPU speed-up "
        "= CPU time / GPU time; costs at the price table "
        f"{esc(str(first['pricing']))} ({esc(str(first['price_date']))}), the GPU priced as "
        f"{esc(str(first['gpu_priced_as']))}: check that this is the GPU measured. A ratio of "
        "cost above 1: the GPU is the cheaper way to run the workload.</p>"
    )
    page.add(table_html(rows, unit(GPU_COLS, an)))
    page.csv(rows, "gpu_beside_cores")


def write(page: Page, an: Analysis) -> None:
    hw = an.hardware
    if hw.empty:
        page.not_measured.append(
            ("hardware effect", "no framework ran one workload at two or more core counts, "
             "threads = cores, on one machine")
        )  # fmt: skip
        if not an.gpu_beside.empty:
            page.add(f'<h2 id="{ID}">Hardware effect: the GPU beside the cores</h2>')
        write_gpu(page, an)
        return
    page.add(f'<h2 id="{ID}">Hardware effect: scaling with cores</h2>')
    write_gpu(page, an)
    page.add(
        "<p>Speed-up = time on the fewest cores measured / time on <i>n</i> cores; parallel "
        "efficiency = speed-up / (<i>n</i> / fewest cores): 100% is perfect scaling. Runs "
        "whose thread counts differ from their cores are left out (they measure threads).</p>"
    )
    for (source, workload), _ in hw.groupby(["source", "workload"], sort=False):
        page.add(f"<h3>{esc(workload)} ({esc(source)})</h3>")
        page.figure(
            scaling_report.chart(hw[hw["source"] == source], str(workload), an),
            f"scaling_{source}_{workload}",
            f"{workload}: speed-up and efficiency",
        )
    page.add(table_html(hw, unit(HW_COLS, an)))
    page.csv(hw, "hardware_effect")
    page.add("<h3>Where the backends scale differently</h3>")
    if an.scaling_gap.empty:
        page.add(
            "<p>Not measured: needs the reference backend and another at two or more core "
            "counts.</p>"
        )
    else:
        page.add(
            "<p>The reference backend's speed-up / each other backend's over the same core "
            "range; above 1 the reference gains more from the added cores. Called different "
            "when the speed-ups "
            f"differ by more than {effects.SCALING_GAP:.0%} or their intervals separate.</p>"
        )
        page.add(table_html(an.scaling_gap, GAP_COLS, verdict_class))
        page.csv(an.scaling_gap, "scaling_gap")
    write_layers(page, an)


def write_layers(page: Page, an: Analysis) -> None:
    """Each layer's op time at the fewest and the most cores profiled (layers_by_cores)."""
    rows = layers_by_cores.table(an.runs)
    if rows.empty:
        return
    page.add('<h3 id="where-the-cores-go">Where the cores go</h3>')
    page.add(
        "<p>From runs with <code>profile=true</code> at two or more core counts: each layer's "
        "op time per step at the fewest and the most cores, summed over threads. A layer whose "
        "time halved used the added core; one whose time stayed did not. Where a framework "
        "runs independent ops side by side (TensorFlow's inter-op threads), a layer's op time "
        "can grow while the step shrinks: the first row of each framework, the profiled "
        "step's wall time, is what the cores bought.</p>"
    )
    page.add(table_html(rows, LAYER_COLS))
    page.csv(rows, "layers_by_cores")


SECTION = Section(ID, "hardware", write)
