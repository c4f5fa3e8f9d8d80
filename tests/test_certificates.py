"""A certificate is an annotation, judged by its own figures (issue 28): an unreadable or
hand-written one reads "invalid" with the command that re-certifies, never costs the run it
annotates, and one edited to say "passed" over failing figures is not reported as a pass."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analysis.compute import certificates as analysis_certificates
from analysis.load.records import SOURCE
from frameworks import certified
from tests import certificate_fakes
from twinbench.parity import certificates


def _write(tmp_path, **figures):
    report = certificate_fakes.report("mlp", **figures)
    return certificates.write_certificate(report, tmp_path)


def test_a_certificate_whose_figures_pass_reads_pass(tmp_path):
    _write(tmp_path)
    assert certificates.status("mlp", tmp_path, backend="torch")["status"] == "pass"


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"passed": true', "unreadable"),  # cut off mid-file
        ('{"passed": true}', "incomplete"),  # written by hand
        ("[1, 2]", "not a certificate"),
    ],
)
def test_an_unreadable_or_hand_written_certificate_is_invalid_and_says_how_to_recertify(
    tmp_path, content, why
):
    (tmp_path / "mlp.torch.json").write_text(content)
    found = certificates.status("mlp", tmp_path, backend="torch")
    assert found["status"] == "invalid" and why in found["reason"]
    assert found["advice"] == "re-certify: python -m twinbench.parity mlp --backends torch"


def test_a_certificate_edited_to_pass_over_failing_figures_is_invalid(tmp_path):
    path = _write(tmp_path)
    cert = json.loads(path.read_text())
    cert["forward_max_abs_diff"] = 0.5  # the tolerance is 1e-5 + 1e-4 on probabilities
    path.write_text(json.dumps(cert))
    found = certificates.status("mlp", tmp_path, backend="torch")
    assert found["status"] == "invalid" and "forward outputs differ by 0.5" in found["reason"]


@pytest.mark.parametrize(
    ("edit", "phrase"),
    [
        (lambda c: c["params"].update(torch=1), "parameter counts differ"),
        (lambda c: c.update(weight_roundtrip_max_abs_diff=1e-3), "round trip"),
        (lambda c: c["training"]["configured"].update(weights_beyond_bound=10**6), "training"),
        (lambda c: c["training"]["configured"].update(weight_bound=1.0), "looser"),
        (lambda c: c["training"]["configured"].update(lr_max_rel_diff=0.1), "learning-rate"),
    ],
)
def test_every_figure_is_judged_again(tmp_path, edit, phrase):
    cert = json.loads(_write(tmp_path).read_text())
    edit(cert)
    verdict, why = certified.verdict(cert)
    assert verdict == "invalid" and phrase in why


def test_a_failed_certificate_with_its_figures_reads_fail(tmp_path):
    certificates.write_certificate(certificate_fakes.report("mlp", passed=False), tmp_path)
    assert certificates.status("mlp", tmp_path, backend="torch")["status"] == "fail"


def test_the_summary_is_rewritten_without_a_broken_pair(tmp_path):
    (tmp_path / "mlp.keras_jax.json").write_text('{"model": "mlp", "backend": "keras_jax"}')
    _write(tmp_path)
    summary = json.loads(certificates.certificate_path("mlp", tmp_path).read_text())
    assert summary["backends"] == ["torch"] and summary["passed"] is True


def test_the_report_judges_the_figures_too(tmp_path):
    runs = pd.DataFrame([{"source": SOURCE, "model": "mlp", "parity_status": "pass"}])
    _write(tmp_path)
    path = certificates.certificate_path("mlp", tmp_path)  # the summary the analysis reads
    assert analysis_certificates.parity(runs, [tmp_path]).loc[0, "certificate_status"] == "pass"
    cert = json.loads(path.read_text())
    cert["forward_max_abs_diff"] = 0.5
    path.write_text(json.dumps(cert))
    row = analysis_certificates.parity(runs, [tmp_path]).loc[0]
    assert row["certificate_status"] == "invalid" and "forward" in row["certificate_problem"]
