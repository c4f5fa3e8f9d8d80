"""The one exception analysis raises for bad input: printed as a single line, never a traceback."""

from __future__ import annotations


class AnalysisError(Exception):
    """Input the analysis cannot use (no results, unknown schema, bad JSON, no baseline...).

    The message is complete on its own: the command line prints it as `analysis: error: <msg>`
    and exits non-zero.
    """
