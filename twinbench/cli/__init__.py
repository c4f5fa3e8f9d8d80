"""The one entry point: the `twinbench` subcommands, the Hydra app, the sweep-end callback. It sits
on top: the only package that imports both the core and analysis.
"""
