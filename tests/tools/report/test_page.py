"""The report page: one file with the charting library inlined, data that cannot break out of its script, and the
unsupported sentences marked where they stand in the answer."""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources

from gavel.tools.report.cards import card, highlight
from gavel.tools.report.page import document, json_script, vendored_js
from gavel.tools.report.vendored import VENDORED

MAX_VENDORED_BYTES = 2_000_000


def test_the_page_inlines_the_charting_library_and_loads_nothing_from_outside() -> None:
    page = document("t", "<p>body</p>", {"chart-a": {"mark": "bar"}})
    assert vendored_js() in page
    # The library's own strings (its PNG export builds an <img src=...>) are not the page's markup.
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page.replace(vendored_js(), ""))
    assert "sourceMappingURL" not in page


def test_the_vendored_library_is_the_one_recorded_and_stays_small() -> None:
    folder = resources.files("gavel.tools.report") / "vendor"
    for item in VENDORED:
        assert hashlib.sha256((folder / item.file).read_bytes()).hexdigest() == item.sha256, item.file
        assert (folder / f"LICENSE-{item.package}").is_file()
    assert len(vendored_js().encode()) < MAX_VENDORED_BYTES


def test_data_cannot_end_its_script_element() -> None:
    block = json_script("d", {"text": "</script><script>alert(1)</script>"})
    assert block.count("</script>") == 1
    inner = block.removeprefix('<script type="application/json" id="d">').removesuffix("</script>")
    assert json.loads(inner) == {"text": "</script><script>alert(1)</script>"}


def test_unsupported_sentences_are_marked_in_place_and_a_quote_not_in_the_answer_is_listed() -> None:
    answer = "Paris is in France. It has 90 million people."
    claim = "It has 90 million people."
    marked, missing = highlight(answer, [claim, "a paraphrase"], {claim: 0.1})
    assert marked == (
        'Paris is in France. <mark class="unsupported" title="unsupported by the passages: P(supported) = 0.10">'
        "It has 90 million people.</mark>"
    )
    assert missing == ["a paraphrase"]


def test_text_from_the_data_is_escaped() -> None:
    row = {"id": "<b>x</b>", "verdict": "error", "error_kind": "invalid", "error": "<img src=x onerror=alert(1)>"}
    html = card("judge_rag_answer", row, {})
    assert "<img" not in html and "&lt;img src=x" in html and "&lt;b&gt;x&lt;/b&gt;" in html


def test_an_assessments_low_and_unscored_metrics_are_highlighted() -> None:
    scores = [
        {"metric": "clarity", "name": "Clarity", "score": 2.0, "status": "scored", "explanation": "Vague."},
        {"metric": "accuracy", "name": "Accuracy", "score": None, "status": "unscored", "reason": "no valid score"},
        {"metric": "tone", "name": "Tone", "score": 5.0, "status": "scored", "explanation": "Fine."},
    ]
    row = {"id": "a", "verdict": "undecided", "score": 3.5,
           "result": {"scores": scores, "low_metrics": ["clarity"], "average": 3.5, "passed": None}}  # fmt: skip
    html = card("evaluate_assessment", row, {"assessment": "The text."})
    assert '<tr class="low"><td>Clarity</td>' in html and "scored (low)" in html
    assert '<tr class="unscored"><td>Accuracy</td>' in html and "no valid score" in html
    assert '<tr class=""><td>Tone</td>' in html
