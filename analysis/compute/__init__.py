"""Figures from the runs table: summaries, effects, ratios, scaling, verdicts, prices."""
