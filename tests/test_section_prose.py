"""The report sections' headings and prose live in templates (analysis/templates/sections/):
each paragraph renders as the one line the page always had, and values are escaped."""

from __future__ import annotations

from types import SimpleNamespace

from analysis.render.htmlkit import prose


def test_a_paragraph_written_over_template_lines_renders_as_one_line_with_values_escaped():
    found = [
        SimpleNamespace(line="torch <script>alert(1)</script>", disagreement=None),
        SimpleNamespace(line="cnn", disagreement="step time & training time disagree"),
    ]
    html = str(prose("explain").verdict_list(found))
    assert "\n" not in html and "  " not in html
    assert "A capped run (<code>max_steps</code>) is judged on" in html  # markup kept as markup
    assert "<li>torch &lt;script&gt;alert(1)&lt;/script&gt;</li>" in html
    assert html.endswith(
        '<li>cnn</li><li class="warn">step time &amp; training time disagree</li></ul>'
    )


def test_numbers_in_prose_keep_their_formats():
    intro = str(prose("scaling_report").intro(2.0, 0.95))
    assert "USL must win by more than 2 to justify" in intro
    assert "Intervals: 95%, Student t" in intro
    assert str(prose("speed_of_light").above_limit("a step ran fast")) == (
        '<p class="warn">A step ran fast.</p>'
    )
