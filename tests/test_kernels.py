"""Which kernels ran: MKL and oneDNN verbose logs from a separate probe process, parsed."""

from __future__ import annotations

from twinbench.measure import kernels

from .conftest import read_result, run_cli

LOG = """\
MKL_VERBOSE oneMKL 2024.0 Product build 20240605 for Intel(R) 64 architecture Intel(R) \
Advanced Vector Extensions 512 (Intel(R) AVX-512) enabled processors, Lnx 2.60GHz lp64
MKL_VERBOSE SGEMM(N,N,512,128,784,0x7f,0x7f,512,0x7f,784,0x7f,0x7f,512) 1.21ms CNR:OFF NThr:2
MKL_VERBOSE SGEMM(T,N,512,784,128,0x7f,0x7f,512,0x7f,784,0x7f,0x7f,512) 1.02ms CNR:OFF NThr:2
onednn_verbose,v1,info,cpu,isa:Intel AVX-512 with Intel DL Boost and bfloat16 support
onednn_verbose,v1,primitive,exec,cpu,convolution,brg_conv_fwd:avx512_core,forward_training,x
onednn_verbose,v1,primitive,exec,cpu,reorder,jit:uni,undef,x
onednn_verbose,v1,primitive,exec,cpu,convolution,brg_conv_fwd:avx512_core,forward_training,x
some other line
twinbench probe runtimes: torch
"""


def test_the_verbose_logs_say_which_functions_implementations_and_isa_ran():
    r = kernels.parse(LOG)
    assert r["mkl"]["calls"] == {"SGEMM": 2}
    assert "AVX-512" in r["mkl"]["isa"]
    assert r["onednn"]["isa"] == "Intel AVX-512 with Intel DL Boost and bfloat16 support"
    assert r["onednn"]["primitives"] == {
        "convolution brg_conv_fwd:avx512_core": 2,
        "reorder jit:uni": 1,
    }
    assert r["summary"] == (
        "MKL SGEMM x2; oneDNN convolution brg_conv_fwd:avx512_core x2; "
        "oneDNN ISA: Intel AVX-512 with Intel DL Boost and bfloat16 support"
    )
    assert r["runtimes_in_process"] == ["torch"]
    assert kernels.parse("no probe line")["runtimes_in_process"] is None


def test_a_run_with_the_kernel_probe_records_what_torch_ran(tmp_path):
    proc = run_cli(
        "cpus=1", "epochs=1", "max_steps=3", "measure.peak_probe=false",
        "measure.kernel_probe=true", f"hydra.run.dir={tmp_path}",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    k = read_result(tmp_path)["kernels"]
    assert "error" not in k, k
    # torch's fp32 Linear runs a BLAS sgemm (MKL in this build) or a oneDNN matmul
    assert k["mkl"]["calls"] or k["onednn"]["primitives"], k
    assert k["steps"] == kernels.PROBE_STEPS
    assert k["runtimes_in_process"] == ["torch"]
