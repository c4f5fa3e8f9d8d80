"""twinbench: the same network on several backends under a verified CPU budget.

Sub-packages, bottom to top (tests/test_layers.py holds the rule):
- paths: where conf/ and results/ live;
- result, stats, ui: the typed result record, timing statistics, terminal progress (what the
  analysis may read too);
- machine, config, worker, measure, launch, parity: the core that runs and certifies;
- cli: the one entry point, the only place that imports both the core and analysis.
"""
