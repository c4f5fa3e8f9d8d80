"""One-off diagnostics behind dated findings (docs/findings/): each module is one experiment,
run as `python -m benchmarks.diagnostics.<name> ...`, its output kept beside the measurements it
explains. Importing a module does nothing: the CPU budget is applied, and the frameworks are
imported, only when its `main` runs.
"""
