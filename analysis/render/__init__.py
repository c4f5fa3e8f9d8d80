"""Showing them: the HTML report, charts, the terminal summary."""
