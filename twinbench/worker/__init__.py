"""The measured process: one run, one framework, in a fresh interpreter (python -m twinbench.worker
RUN_DIR).
"""
