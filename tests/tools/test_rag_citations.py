"""Which passages an answer cites, read without the model."""

from __future__ import annotations

import pytest

from gavel.tools.rag import Passage
from gavel.tools.rag.citations import detect_citations
from tests.support.rag_cases import PASSAGES

# -- detect_citations -----------------------------------------------------------------------------------------

UNNAMED = [
    Passage(content="first"),
    Passage(content="second"),
    Passage(title="The Balanced Scorecard Handbook", content="third"),
]
CUSTOM_IDS = [Passage(id="doc-alpha", content="a"), Passage(id="question_123", content="b")]


@pytest.mark.parametrize(
    ("answer", "sources", "used", "expected"),
    [
        pytest.param("Four perspectives [1].", UNNAMED, None, (True, ["1"], []), id="numeric-bracket-no-ids"),
        pytest.param("Four perspectives [2].", PASSAGES, None, (True, ["S2"], []),
                     id="numeric-bracket-nth-source-with-ids"),
        pytest.param("Four perspectives [S1].", PASSAGES, None, (True, ["S1"], []), id="s-bracket-matches-id"),
        pytest.param("Four perspectives [S2].", UNNAMED, None, (True, ["2"], []),
                     id="s-bracket-positional-without-ids"),
        pytest.param("Four perspectives [1, 3].", UNNAMED, None, (True, ["1", "3"], []), id="bracket-list"),
        pytest.param("Four perspectives [1-2].", UNNAMED, None, (True, ["1", "2"], []), id="bracket-range"),
        pytest.param("Four perspectives.[^2]", UNNAMED, None, (True, ["2"], []), id="markdown-footnote"),
        pytest.param("Four perspectives (Source: S2).", PASSAGES, None, (True, ["S2"], []), id="paren-source-id"),
        pytest.param("Quatro perspectivas (Fonte: Kaplan & Norton, 1996, p. 8-12).", PASSAGES, None,
                     (True, ["S1"], []), id="paren-fonte-with-title"),
        pytest.param("Quatro perspectivas (Fonte: manual interno).", PASSAGES, None, (True, [], []),
                     id="paren-fonte-unmatched-still-cites"),
        pytest.param("Four perspectives.\nFonte: Kaplan & Norton (1996)", PASSAGES, None, (True, ["S1"], []),
                     id="fonte-line-with-title"),
        pytest.param("Four perspectives.\n\nSources:\n- the handbook", UNNAMED, None, (True, [], []),
                     id="sources-line-with-a-partial-title-cites-nothing-matched"),
        pytest.param("Four perspectives.\n\n## References\n- internal wiki", PASSAGES, None, (True, [], []),
                     id="references-heading"),
        pytest.param("According to source 2, maps link them.", PASSAGES, None, (True, ["S2"], []),
                     id="source-n-mention"),
        pytest.param("As Strategy Maps explains, they are linked.", PASSAGES, None, (True, ["S2"], []),
                     id="title-mention"),
        pytest.param("See doc-alpha for the details.", CUSTOM_IDS, None, (True, ["doc-alpha"], []),
                     id="id-mention"),
        pytest.param("[S2] says one thing and [S1] another.", PASSAGES, None, (True, ["S2", "S1"], []),
                     id="order-of-first-citation"),
        pytest.param("The BSC has four perspectives.", PASSAGES, None, (False, [], []), id="no-citation"),
        pytest.param("1. [HIGH] Implement customer success.", PASSAGES, None, (False, [], []),
                     id="priority-tag-is-not-a-citation"),
        pytest.param("There is 1 plan and 2 goals.", [Passage(id="1", content="x"), Passage(id="2", content="y")], None,
                     (False, [], []), id="bare-numeric-ids-are-not-mentions"),
        pytest.param("Four perspectives [S1].", PASSAGES, ["S1", "S9"], (True, ["S1"], ["S9"]),
                     id="sources-used-id-not-among-passages-is-unknown"),
        pytest.param("Four perspectives [7].", PASSAGES, None, (True, [], ["7"]), id="out-of-range-number-is-unknown"),
        pytest.param("Four perspectives [1].", [], None, (True, [], []), id="numbered-citation-without-passages"),
        pytest.param("Revised in [2023] by the authors.", PASSAGES, None, (False, [], []),
                     id="bracketed-year-is-not-a-citation"),
        pytest.param("See question_123.", [], ["question_123"], (True, [], ["question_123"]),
                     id="cited-id-from-sources-used-without-passages"),
        pytest.param("Four perspectives.", UNNAMED, ["2", "S3"], (False, [], []),
                     id="positional-sources-used-are-known"),
    ],
)  # fmt: skip
def test_detect_citations(answer, sources, used, expected):
    assert detect_citations(answer, sources, used) == expected
