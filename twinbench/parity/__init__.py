"""Equivalence on every backend (docs/equivalence.md): a reference backend against each other
registered one (frameworks/registry.py), each backend in its own process.

    python -m twinbench.parity mlp cnn ...     # or --all; --reference NAME, --backends A,B, --quiet
    # writes results/parity/<model>.<backend>.json per pair and <model>.json, their summary
    python -m twinbench.parity mlp cnn --precision bfloat16
    # bfloat16 parity (precision_parity.py): adds a "precision" block to each pair's certificate

The reference is REFERENCE, Keras on TensorFlow: its weights are the canonical layout as they
are (no conversion can hide an error there), and it is the Keras the 2017 scripts ran.
1. The reference builds the model (seeded) and exports canonical weights; every other backend
   imports them (a torch model through frameworks/torch_native/weight_layout.py, a Keras one as
   they are).
2. Forward parity: both predict the same probe batch in inference mode (float32); a model that
   names PARITY_LAYERS (the transformers) is also compared layer by layer against a bound
   measured from unmutated halves (frameworks/layer_parity.py; spread.py measures it).
3. Training parity: from the same weights, dropout off, both take the same STEPS optimizer steps
   on the same batches with the configured hyperparameters (epsilon included) and the configured
   update formula; losses and final weights must agree tightly (tight_bound: a small fraction of
   the distance the optimizer could move a weight in STEPS steps, never that distance itself;
   at most OUTLIER_FRACTION of the weights, those rounding gave a gradient of the other sign,
   may exceed it).
   This holds only where both frameworks run one formula (`optimizer.formula: "2017"`, the
   default); with "builtin", where Keras 3's RMSprop or torch's Adam differ, the check fails and
   says so. tests/test_parity.py mutates each hyperparameter on one side to show it can fail.
4. Learning-rate schedules: both optimizers' learning rates are read at steps spread over a full
   run (up to SCHEDULE_STEPS), so a decay too small to show in STEPS steps is still compared.
   BatchNorm moving variances are checked against the range torch's unbiased update allows.
5. Stochastic checks: at the end of each stage the backend also draws on its own (draws.py:
   fresh initial weights at its own seed, each dropout layer in training mode, its augmentation
   of a coordinate probe, each attention layer's dropout by its effect on the kernel that runs,
   and, on torch, whether a training forward runs every dropout module holding a rate), and
   distributions.py tests the draws against the reference's and the config at the false-alarm
   rates of conf/equivalence/default.yaml.
A certificate records a fingerprint of what it certifies (the model's code and config, the
adapters' optimizer code, the framework versions); a run whose fingerprint differs reads "stale".
The orchestration is numpy only; frameworks load in the stage subprocesses.

One job a module: stages.py (one
backend's stage, and running each in its own process), compare.py (a stage against the
reference's: ParityReport), certificates.py (writing, reading, status), cli.py (the command line),
draws.py and distributions.py (the stochastic checks), spread.py (the forward agreement and the
attention-dropout check over seeds: their measured false-alarm rates), precision_stage.py and
precision_parity.py (bfloat16 parity: a backend's traced bf16 stage, and the comparison).
The bounds and their derivations live beside the certificate's fingerprint, in
frameworks/tolerances.py, so that the analysis can judge a certificate's figures too
(frameworks/certified.py `verdict`).
"""
