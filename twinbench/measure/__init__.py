"""Probes beside the runs: the machine's GEMM peak, the speed of light per workload, the kernels
that ran.
"""
