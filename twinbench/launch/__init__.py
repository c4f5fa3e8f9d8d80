"""The parent side of runs and sweeps: plan, order, repeat, start fresh workers, keep them tied to
the parent.
"""
