"""Specification of how a speed table spends its budget (benchmarks/rounds.py): rounds go first
to the rows that can decide in the time left. The plain rounds, every row every round, are held
in tests/test_benchmarks.py."""

from __future__ import annotations

from benchmarks import rounds
from benchmarks.diagnostics import rounds_replay as replay


def test_the_rows_within_reach_are_the_nearest_their_decision_while_their_seconds_fit():
    needs = {
        0: (10, 10.0),  # 100 s
        1: (2, 10.0),  # 20 s: nearest
        2: (None, 5.0),  # no budget would decide it
        3: (50, 10.0),  # 500 s
    }
    assert rounds.within_reach(needs, 150.0) == {0, 1}
    assert rounds.within_reach(needs, 119.0) == {1}  # 20 + 100 s do not fit in 119
    assert rounds.within_reach(needs, 700.0) == {0, 1, 3}  # never the row no budget decides
    # none fits: every row with a projection runs (a projection is a quantile, not a promise)
    assert rounds.within_reach(needs, 10.0) == {0, 1, 3}
    # no row has a projection: all narrow their intervals
    assert rounds.within_reach({0: (None, 5.0), 1: (None, 9.0)}, 10.0) == {0, 1}


def test_under_a_tight_budget_rounds_by_reach_decide_more_rows_than_even_rounds():
    """The synthetic table (benchmarks/diagnostics/rounds_replay.py: four rows 15% apart, four
    on the margin's edge, 30 s units) in 30 minutes: even rounds give each row about seven
    units. Rounds by reach stop paying the rows on the margin's edge once they have an interval,
    tell so in a line, and give the time to the decidable ones: over five seeded tables more
    rows decide, none fewer in any table, and every row still reached its first interval."""
    decided: dict[bool, list[int]] = {True: [], False: []}
    for even in (True, False):
        for seed in range(5):
            clock, said = replay.FakeClock(), []
            rows = replay.replayed_rows(replay.synthetic_sources(), clock, seed)
            results = rounds.run_table(rows, 40, 30, said.append, clock.now, even_rounds=even)
            decided[even].append(sum(r["decision"]["outcome"] != "undecided" for r in results))
            assert all(r["pairs"] >= 5 for r in results)
            assert clock.t <= 30 * 60
            edge = [r for r in results if r["row"].startswith("edge")]
            if even:
                assert all(r["rounds_out_of_reach"] == 0 for r in results)
                assert not any("out of reach" in s for s in said)
            else:
                assert all(r["rounds_out_of_reach"] > 0 for r in edge)
                assert sum("out of reach for now" in s for s in said) >= len(edge)
    pairs_of_tables = zip(decided[False], decided[True], strict=True)
    assert all(by_reach >= plain for by_reach, plain in pairs_of_tables)
    assert sum(decided[False]) > sum(decided[True]), decided
