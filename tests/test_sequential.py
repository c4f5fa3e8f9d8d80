"""Sequential paired decisions (twinbench/sequential.py): three outcomes, an honest undecided, and
an error rate that survives looking after every pair.

The simulation draws pairs with this machine's noise: each process +-10% (uniform) and in 30% of
processes a slow mode 8% up (the bimodal epochs of docs/findings), the two halves of a pair
independent. numpy only, seeded, well under 10 s.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from twinbench import confidence
from twinbench import sequential as seq
from twinbench.sequential import Design, first_decisions

REPS, PAIRS = 4000, 40  # 4000 sequences: the rate's standard error at 5% is 0.35 points


def _process(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """log time of one process relative to its config's own: +-10% and a slow mode (+8%, 30%)."""
    return np.log1p(rng.uniform(-0.10, 0.10, shape)) + math.log(1.08) * (rng.random(shape) < 0.3)


def _log_ratios(effect: float, seed: int = 0) -> np.ndarray:
    """REPS sequences of PAIRS log ratios A/B where A takes (1 + effect) times B's time."""
    rng = np.random.default_rng(seed)
    shape = (REPS, PAIRS)
    return math.log1p(effect) + _process(rng, shape) - _process(rng, shape)


def _rates(effect: float, d: Design) -> dict[str, float]:
    outcome, _ = first_decisions(_log_ratios(effect), d)
    counts = np.bincount(outcome, minlength=4) / REPS
    return dict(zip(seq.OUTCOMES, counts.tolist(), strict=True))


@pytest.fixture(scope="module")
def design() -> Design:
    return Design(margin=0.05, alpha=0.05, min_pairs=2, max_pairs=PAIRS, max_seconds=None)


# ------------------------------------------------------------------ the error rate, simulated


def test_a_against_itself_rarely_declares_a_winner(design: Design) -> None:
    r = _rates(0.0, design)
    assert r["a_faster"] + r["b_faster"] <= design.alpha
    assert r["equivalent"] > 0.05  # and it can call them the same (about 11% within 40 pairs)


def test_an_effect_at_the_margin_is_rarely_called_either_way(design: Design) -> None:
    # True ratio exactly 1.05: "beyond 5%" and "within 5%" are both wrong; together <= alpha.
    r = _rates(0.05, design)
    assert r["b_faster"] + r["equivalent"] + r["a_faster"] <= design.alpha


def test_a_ten_percent_effect_is_found_most_of_the_time_and_never_reversed(design: Design) -> None:
    r = _rates(0.10, design)
    assert r["b_faster"] > 0.4  # power within 40 pairs at this harsh noise (about 0.52)
    assert r["a_faster"] == 0.0 and r["equivalent"] <= design.alpha


def test_coverage_holds_at_every_pair_count_at_once(design: Design) -> None:
    # The property behind all three: the interval holds the true mean at all 40 looks together.
    low, high = seq.running_bounds(_log_ratios(0.0, seed=1), design)
    missed = ((low > 0) | (high < 0)).any(axis=1).mean()
    assert missed <= design.alpha


def test_mutation_a_fixed_n_interval_rechecked_after_every_pair_breaks_the_rate() -> None:
    """The check above can fail: a 95% t interval re-checked after each pair (the one-line
    mutation `half_widths -> fixed-n t interval`) misses far more often than alpha."""
    from scipy.stats import t

    x = _log_ratios(0.0, seed=1)
    n = np.arange(1, PAIRS + 1)
    mean = np.cumsum(x, axis=1) / n
    sd = np.array([x[:, :k].std(axis=1, ddof=1) if k > 1 else np.full(REPS, np.inf) for k in n]).T
    h = t.ppf(0.975, np.maximum(n - 1, 1)) * sd / np.sqrt(n)
    missed = ((mean - h > 0) | (mean + h < 0))[:, 1:].any(axis=1).mean()
    assert missed > 0.05 * 3


# ------------------------------------------------------------------ one sequence


def test_outcomes_follow_where_the_interval_lies(design: Design) -> None:
    m = design.log_margin
    assert seq.classify(-2 * m, -1.1 * m, design) == "a_faster"
    assert seq.classify(1.1 * m, 2 * m, design) == "b_faster"
    assert seq.classify(-0.9 * m, 0.9 * m, design) == "equivalent"
    assert seq.classify(-1.1 * m, 0.5 * m, design) == "undecided"  # straddles -margin


def test_the_interval_is_the_whole_line_before_min_pairs_and_narrows_after() -> None:
    d = Design(min_pairs=4, max_pairs=40, max_seconds=None)
    low, high = seq.running_bounds(np.log([1.0, 1.01, 0.99, 1.0, 1.01, 0.99, 1.0]), d)
    assert np.all(np.isinf(low[0, :3]))
    widths = (high - low)[0, 4:]
    assert np.all(np.diff(widths) < 0)


def test_a_clear_difference_decides_early_and_says_which_side() -> None:
    d = Design(margin=0.05, max_pairs=40, max_seconds=None)
    ratios = [1.30, 1.32, 1.29, 1.31, 1.30, 1.33, 1.28, 1.30, 1.31, 1.29]
    decision = seq.decide_sequence(ratios, d)
    assert decision.outcome == "b_faster" and decision.stopped_by == "decided"
    assert decision.pairs < len(ratios)  # it stopped at the first decided pair
    assert decision.ratio_low > 1.05 and decision.measure == "wall"
    assert "faster" in decision.line("torch", "tensorflow")


def test_undecided_at_budget_states_the_margin_it_could_resolve() -> None:
    d = Design(margin=0.01, max_pairs=6, max_seconds=None)
    ratios = [1.0, 1.08, 0.93, 1.05, 0.96, 1.02]
    decision = seq.decide_sequence(ratios, d, stopped_by="max_pairs")
    assert decision.outcome == "undecided" and decision.stopped_by == "max_pairs"
    lo, hi = math.log(decision.ratio_low), math.log(decision.ratio_high)
    assert decision.resolvable_margin == pytest.approx(math.expm1(max(-lo, hi)))
    assert "resolve a margin of" in decision.line()


def _exactly(mean: float, sd: float, n: int) -> list[float]:
    """n ratios whose log ratios have exactly this mean and sample standard deviation."""
    z = np.random.default_rng(n).standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    return list(np.exp(mean + sd * z))


def test_an_undecided_sequence_says_what_budget_would_likely_decide_it() -> None:
    """The projection is the decision rule itself run ahead: at a fixed mean and spread, pairs
    decide at exactly pairs_to_decide's count and one pair fewer does not. The verdict's budget
    allows for the mean's own uncertainty: the `projection_quantile` of that count over means
    drawn within the mean's standard error, so never below the count at the mean itself here
    (a mean near 1 needs the fewest pairs to be called equivalent), and smaller at a lower
    quantile (here 37 at the median, 101 at the default 0.75). A ratio on the margin's edge
    gets no budget, and the verdict says why."""
    d = Design(margin=0.05, max_pairs=200, max_seconds=None)
    mean, sd = math.log(1.02), 0.05
    n = confidence.pairs_to_decide(mean, sd, d)
    assert n is not None and n > 8

    def last_interval(count: int) -> str:  # the interval after all `count` pairs, not a prefix
        low, high = seq.running_bounds(np.log(_exactly(mean, sd, count)), d)
        return seq.classify(low[0, -1], high[0, -1], d)

    assert last_interval(n) == "equivalent" and last_interval(n - 1) == "undecided"

    now = seq.decide_sequence(_exactly(mean, sd, 8), d, stopped_by="max_pairs")
    assert now.outcome == "undecided" and now.pairs_to_decide is not None
    budget = now.pairs_to_decide
    draws = np.random.default_rng(0).normal(mean, sd / math.sqrt(8), d.projection_draws)
    counts = confidence.pairs_to_decide(draws, sd, d)
    assert budget == np.quantile(counts, d.projection_quantile, method="higher")
    assert budget >= confidence.pairs_to_decide(math.log(1.0), sd, d)
    lower = Design(margin=0.05, max_pairs=200, max_seconds=None, projection_quantile=0.5)
    assert seq.decide_sequence(_exactly(mean, sd, 8), lower).pairs_to_decide < budget
    assert f"a budget of about {budget} pairs in all would likely decide +-5%" in now.verdict()
    edge = seq.decide_sequence(_exactly(d.log_margin, sd, 8), d, stopped_by="max_pairs")
    assert edge.pairs_to_decide is None and "reaches the margin's edge" in edge.verdict()


def test_an_undecided_interval_that_excludes_equality_says_which_side_it_shows_faster() -> None:
    """Pairs spread around +5% with a 5% margin: neither beyond the margin nor within it, but
    the interval excludes 1 and says so, with the bound it shows; one around 1 shows none."""
    d = Design(margin=0.05, max_pairs=12, max_seconds=None)
    slower = seq.decide_sequence([1.05, 1.08, 1.03, 1.06, 1.04, 1.07, 1.02, 1.05], d)
    assert slower.outcome == "undecided" and slower.ratio_low > 1
    assert slower.shown_difference() == ("b", pytest.approx(slower.ratio_low - 1))
    assert "show tensorflow faster by at least" in slower.verdict("torch", "tensorflow")
    quicker = seq.decide_sequence([1 / r for r in [1.05, 1.08, 1.03, 1.06, 1.04, 1.07]], d)
    assert quicker.shown_difference() == ("a", pytest.approx(1 / quicker.ratio_high - 1))
    around_one = seq.decide_sequence([1.0, 1.08, 0.93, 1.05, 0.96, 1.02], d)
    assert around_one.shown_difference() is None
    assert "faster by at least" not in around_one.verdict()
    assert seq.decide_sequence([1.04, 1.04], d).shown_difference() is None  # no interval yet


def test_run_sequence_stops_on_the_seconds_budget_and_says_so() -> None:
    clock = iter(range(0, 1000, 100))  # every reading 100 s later
    d = Design(max_pairs=40, max_seconds=250)
    ratios, decision = seq.run_sequence(
        lambda i: [1.0, 1.2, 0.85][i % 3], d, now=lambda: float(next(clock)), say=lambda _: None
    )
    assert decision.stopped_by == "max_seconds" and len(ratios) == 3


def test_run_sequence_stops_at_the_first_decision() -> None:
    d = Design(margin=0.05, max_pairs=40, max_seconds=None)
    ratios, decision = seq.run_sequence(lambda i: 0.7 + 0.002 * (i % 2), d, say=lambda _: None)
    assert decision.outcome == "a_faster" and len(ratios) == decision.pairs < 40


def test_the_shipped_design_loads_and_bad_values_are_refused() -> None:
    d = seq.load_design()
    assert d.margin == 0.05 and d.measure in seq.MEASURES
    assert seq.load_design(margin=0.1).margin == 0.1
    with pytest.raises(ValueError, match="margin"):
        Design(margin=0.0)
    with pytest.raises(ValueError, match="measure"):
        Design(measure="cycles")


def test_the_speed_benchmarks_rows_carry_the_decision_on_their_pairs() -> None:
    from benchmarks import pairs

    samples = [(pairs.Sample(1.0, 2.0), pairs.Sample(1.5, 3.0)) for _ in range(8)]
    s = pairs.summarise(samples)
    assert s["decision"]["outcome"] == "a_faster" and s["decision"]["pairs"] <= 8
    assert "decision: A/B wall time" in pairs.line("row", s)


def test_the_interval_ends_where_the_mixture_martingale_reaches_one_over_alpha() -> None:
    """The closed form against its definition: M_n(m) = sqrt(c/(n+c)) (1 - T^2/((n+c)S))^(-n/2)
    with T, S the sum and sum of squares of x - m is exactly 1/alpha at both ends, below inside."""
    x = np.random.default_rng(0).normal(0.1, 0.05, 9)
    d = Design(max_seconds=None)
    low, high = (float(b[0, -1]) for b in seq.running_bounds(x, d))

    def martingale(m: float) -> float:
        t, s, n, c = (x - m).sum(), ((x - m) ** 2).sum(), x.size, d.prior_precision
        return math.sqrt(c / (n + c)) * (1 - t * t / ((n + c) * s)) ** (-n / 2)

    assert martingale(low) == pytest.approx(1 / d.alpha)
    assert martingale(high) == pytest.approx(1 / d.alpha)
    assert martingale((low + high) / 2) < 1 / d.alpha
