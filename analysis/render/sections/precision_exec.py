"""The section on precision and execution mode: the {float32, bfloat16} x {eager, compiled}
matrix per workload and backend (analysis/compute/exec_matrix.py), with the flag a bfloat16
cell carries where the CPU had no bfloat16 units."""

from __future__ import annotations

from analysis.compute import exec_matrix
from analysis.compute.pipeline import Analysis
from analysis.render.htmlkit import Col, table_html
from analysis.render.page import Page, Section

ID = "precision-exec"


def write(page: Page, an: Analysis) -> None:
    table = exec_matrix.matrix(an.runs)
    if table.empty:
        return
    page.add(f'<h2 id="{ID}">Precision and execution mode</h2>')
    page.add(
        "<p>Per workload and backend: the median steady step, the first step over it "
        "(tracing and compilation), the loss after the run's steps against the float32 run of "
        "the same mode, and for compiled cells the break-even step count: after how many "
        "steps the compiled run's total time drops below the eager one's (inf: never). Its "
        "<i>low</i> and <i>high</i>, where each mode has several runs, are the range over every "
        "pairing of one compiled with one eager run: a range of runs, not a confidence "
        "interval.</p>"
    )
    emulated = table[(table["precision"] == "bfloat16") & (table["bf16_units"] == False)]  # noqa: E712
    if not emulated.empty:
        page.add(
            "<p><b>Emulated bfloat16:</b> the CPU of the bfloat16 cells marked "
            "<i>no</i> under <i>BF16 units</i> has no bfloat16 dot-product instructions "
            "(avx512_bf16, amx_bf16): their products were converted around float32 kernels, "
            "so their times measure conversions, not the hardware's bfloat16 speed.</p>"
        )
    if table["bf16_gemm_speedup"].notna().any():
        page.add(
            "<p><b>bfloat16 against its GEMM:</b> <i>bf16 step speed-up</i> is the float32 "
            "steady step over the bfloat16 one (above 1: bfloat16 faster); <i>bf16 GEMM "
            "speed-up</i> is the backend's own library's bfloat16 GEMM rate over its float32 "
            "one on the same cores, same size. A step that gains less than its GEMM spends the "
            "difference outside the products: the per-layer profile (profile=true) says where."
            "</p>"
        )
    page.add(
        table_html(
            table,
            [
                Col("workload", "workload"),
                Col("backend", "backend"),
                Col("precision", "precision"),
                Col("exec_mode", "exec"),
                Col("n", "runs", "g"),
                Col("steady_step_s", "steady step", "ms"),
                Col("steady_ci_low_s", "low", "ms"),
                Col("steady_ci_high_s", "high", "ms"),
                Col("first_step_over_steady_s", "first step over steady", "s"),
                Col("break_even_steps", "break-even steps", "g"),
                Col("break_even_low", "low", "g"),
                Col("break_even_high", "high", "g"),
                Col("final_loss", "loss", "g"),
                Col("loss_minus_fp32", "loss - fp32", "g"),
                Col("bf16_units", "BF16 units", "bool"),
                Col("bf16_step_speedup", "bf16 step speed-up", "x"),
                Col("bf16_gemm_speedup", "bf16 GEMM speed-up", "x"),
                Col("compiled_graphs", "compiled graphs", "g"),
            ],
        )
    )
    page.csv(table, "precision_exec")


SECTION = Section(ID, "precision/exec", write)
