"""A scaling model: each framework's training time against cores, fitted with Amdahl's law and
the Universal Scalability Law (USL), then used to predict time and cost at core counts that were
not measured.

    Amdahl  T(n) = T1 * ((1 - f) + f / n)                         f: parallel fraction
    USL     T(n) = T1 * (1 + sigma * (n - 1) + kappa * n * (n - 1)) / n
                                                sigma: contention, kappa: coherency (crosstalk)

T1 is the model's one-core time (extrapolated when one core was not measured). Only USL can
bend back (more cores, slower), which the 2017 logs show from 32 to 64 vCPUs.

Observations. A run's training time is the sum of its epoch times, so each epoch gives one
observation of the run's time, epoch_time x epochs; runs with no epoch times give one
observation, their training time. Fits are least squares on log time (timing noise is
multiplicative), so T1 is fitted as log T1 and the laws' other parameters keep their bounds.
Intervals are Student-t on the fit's residual variance: epochs of one run vary less than runs
do, so with one run per core count they are narrower than a rerun would show.

Which law: the lower small-sample AIC (AICc) on the same observations; a difference under
AICC_MARGIN does not justify USL's extra parameter, so Amdahl is kept.

Every prediction outside the measured core range is labelled "extrapolated": its interval
covers the fit's uncertainty only, not the law ceasing to hold.

One job a module: settings.py (conf/scaling/default.yaml), laws.py (the two laws, a least-squares
fit with its intervals, and the choice by AICc), observations.py (runs -> (cores, time) pairs),
series.py (a series of runs and its fits), predictions.py (time and cost at other core counts),
model.py (the model over a report), validation.py (predicting held-out core counts) and
__main__.py (`python -m analysis.compute.scaling <2017 logs>`: that validation as Markdown).
"""
