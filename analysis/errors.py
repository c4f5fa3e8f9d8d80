"""The one exception analysis raises for bad input: printed as a single line, never a traceback."""

from __future__ import annotations


class AnalysisError(Exception):
    """Input the analysis cannot use (no results, unknown schema, bad JSON, no baseline...).

    The message is complete on its own: the command line prints it as `analysis: error: <msg>`
    and exits non-zero.
    """


class Stopped(BaseException):
    """SIGTERM or SIGHUP while the analysis works: a BaseException, like KeyboardInterrupt, so
    no `except Exception` on the way swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
