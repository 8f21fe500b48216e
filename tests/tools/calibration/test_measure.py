"""The calibration sets, the agreement statistics and a calibration run in process (scripted model, real ledger)."""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path

import anyio
import pytest

from gavel.tools.calibration import stats
from gavel.tools.calibration.measure import CalibrationRun
from gavel.tools.calibration.records import calibrations_for
from gavel.tools.calibration.sets import ADAPTERS, DATA_DIR, load_file, load_set, shipped_sets
from gavel.tools.engine.backend import ChatReply, ChatRequest
from gavel.tools.engine.fitness import JudgeFitness, fitness_line, near_chance
from gavel.tools.errors import InvalidInput
from gavel.tools.ledger import Ledger
from gavel.tools.rag import JudgeRagAnswerRequest, Passage, judge_rag_answer
from tests.support.deps import REGISTRY, ProgressLog, make_deps
from tests.support.devset import RULE_PAIRS, load_pairs
from tests.support.graded import blind, by_people, dialogue_model
from tests.support.scripted import ScriptedBackend, yes_no

# -- the sets -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["halueval-qa", "clinical-assessment"])
def test_every_shipped_set_says_where_it_comes_from_and_how_it_was_labelled(name: str) -> None:
    meta = tomllib.loads((DATA_DIR / f"{name}.toml").read_text(encoding="utf-8"))
    assert {"tool", "rubric", "source", "source_commit", "license", "labels"} <= set(meta)
    cal_set = load_set(name, REGISTRY)
    assert cal_set.tool == meta["tool"] and cal_set.items
    pairs = {item.pair for item in cal_set.items}
    assert all(sum(1 for i in cal_set.items if i.pair == p and i.good) == 1 for p in pairs)  # one good, one bad


def test_halueval_keeps_its_attribution_and_puts_the_tuned_pairs_last() -> None:
    meta = tomllib.loads((DATA_DIR / "halueval-qa.toml").read_text(encoding="utf-8"))
    assert "CC BY-SA 4.0" in meta["license"] and "HotpotQA" in meta["attribution"]
    assert "CC BY-SA 4.0" in (DATA_DIR / "halueval-qa.README.md").read_text(encoding="utf-8")
    items = load_set("halueval-qa", REGISTRY).items
    assert len(items) == 200 and shipped_sets() == ["clinical-assessment", "halueval-qa", "topicalchat-usr"]
    pairs = load_pairs()  # the development set the benchmarks read, by question number
    tuned = {judged["id"] for pair in pairs[:RULE_PAIRS] for judged in pair}
    assert {item.id for item in items[-meta["tuned_items"] :]} == tuned
    labels = {judged["id"]: "bad" if judged["hallucinated"] else "good" for pair in pairs for judged in pair}
    assert {item.id: "good" if item.good else "bad" for item in items} == labels


def test_the_dialogue_set_is_graded_by_people_in_whole_conversations() -> None:
    meta = tomllib.loads((DATA_DIR / "topicalchat-usr.toml").read_text(encoding="utf-8"))
    assert {"tool", "rubric", "source", "source_commit", "license", "labels"} <= set(meta)
    assert "CDLA-Sharing-1.0" in meta["license"] and "MIT" in meta["license"] and "mean of three" in meta["labels"]
    cal_set = load_set("topicalchat-usr", REGISTRY)
    assert (cal_set.tool, cal_set.rubric, len(cal_set.items)) == ("evaluate_assessment", "dialogue-response", 60)
    assert all(item.good is None and item.graded is not None and 1 <= item.graded <= 5 for item in cal_set.items)
    conversations = [item.pair for item in cal_set.items]
    assert [conversations[i] for i in range(0, 60, 6)] == list(dict.fromkeys(conversations))  # 10 runs of 6
    assert len(cal_set.take(40)) == 36  # whole conversations


def test_the_dialogue_set_is_the_development_set_as_items() -> None:
    dev = [json.loads(line) for line in DEV_DIALOGUE.read_text(encoding="utf-8").splitlines()]
    items = load_set("topicalchat-usr", REGISTRY).items
    assert len(items) == len(dev) == 60
    for item, row in zip(items, dev, strict=True):
        turns = [turn.strip() for turn in row["dialogue_history"].split("\n")]
        fact = "" if row["knowledge"] == "_nofact" else f"\n\nFact: {row['knowledge'].strip()}"
        assert item.fields["source"] == "Conversation:\n" + "\n".join(turns) + fact
        assert item.fields["assessment"] == row["response"].strip() and item.fields["rubric"] == "dialogue-response"
        assert item.graded == pytest.approx(row["human_scores_mean3"]["overall"], abs=1e-4)
        assert item.pair == f"conversation-{row['context_id']}"


def test_a_limit_takes_whole_pairs() -> None:
    cal_set = load_set("halueval-qa", REGISTRY)
    assert len(cal_set.take(41)) == 40 and len(cal_set.take(40)) == 40 and len(cal_set.take(1)) == 0


def test_a_users_own_jsonl_is_read_by_its_fields(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    rows = [
        {"id": "a", "assessment": "Low mood for three weeks.", "source": "Patient: low mood, three weeks.", "score": 4},
        {"id": "b", "assessment": "Fine.", "source": "Patient: low mood, three weeks.", "label": "bad"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    cal_set = load_file(path, REGISTRY)
    assert (cal_set.name, cal_set.tool, cal_set.rubric) == ("mine", "evaluate_assessment", "clinical-assessment")
    assert [(i.good, i.graded) for i in cal_set.items] == [(None, 4.0), (False, None)]
    path.write_text(json.dumps({"id": "x", "assessment": "t", "label": "fine"}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="label must be 'good' or 'bad'"):
        load_file(path, REGISTRY)


def test_two_items_with_one_id_are_refused(tmp_path: Path) -> None:
    # The report's cards find an item's text and judgment by its id: a second one would show the first's.
    path = tmp_path / "mine.jsonl"
    rows = [{"assessment": "t", "label": "good"}, {"id": "line-1", "assessment": "u", "label": "bad"}]
    path.write_text("\n\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="id 'line-1' is on lines 1 and 3; ids must be unique"):
        load_file(path, REGISTRY)


def test_a_users_jsonl_is_read_by_its_own_lines_past_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text('\ufeff{"id": "a", "assessment": "one\u2028two\u0085three", "score": 2}\n', encoding="utf-8")
    [item] = load_file(path, REGISTRY).items
    assert item.fields["assessment"] == "one\u2028two\u0085three"


GOOD = b'{"id": "a", "assessment": "t", "label": "good"}\n'


@pytest.mark.parametrize(
    ("data", "sidecar", "message"),
    [
        pytest.param(b'{"assessment": "t", "score": NaN}', None, r"line 1: score must be a finite number \(got nan\)",
                     id="nan-score"),
        pytest.param(b'{"assessment": "t", "score": true}', None, "score must be a finite number", id="boolean-score"),
        pytest.param(GOOD + b'{"id": "\xff"}', None, r"line 2: not UTF-8 text \(byte 56 of the file\)", id="not-utf8"),
        pytest.param(b'{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", None, "line 1: nested too deeply",
                     id="nested-too-deeply"),
        pytest.param(GOOD, "tool = [\n", "not a TOML sidecar", id="sidecar-not-toml"),
        pytest.param(GOOD, "name = 5\n", "name must be text in quotes, not 5", id="sidecar-name-not-text"),
        pytest.param(GOOD, "rubric = [1]\n", r"rubric must be text in quotes, not \[1\]", id="sidecar-rubric-not-text"),
        pytest.param(GOOD + b'{"assessment": "cut \\ud800", "label": "bad"}', None,
                     r"line 2 holds a lone UTF-16 surrogate escape \(\\ud800\)", id="lone-surrogate"),
    ],
)  # fmt: skip
def test_a_users_file_that_cannot_be_read_is_refused_saying_where(
    tmp_path: Path, data: bytes, sidecar: str | None, message: str
) -> None:
    (tmp_path / "mine.jsonl").write_bytes(data)
    if sidecar is not None:
        (tmp_path / "mine.toml").write_text(sidecar, encoding="utf-8")
    with pytest.raises(InvalidInput, match=message):
        load_file(tmp_path / "mine.jsonl", REGISTRY)


# -- the statistics -----------------------------------------------------------------------------------------


def test_the_statistics_on_hand_made_cases() -> None:
    assert stats.balanced_accuracy([(True, True), (True, None), (False, False), (False, False)]) == 0.75
    assert stats.balanced_accuracy([(True, True)]) is None  # one class only
    assert stats.auroc([0.9, 0.8], [0.1, 0.8]) == pytest.approx(0.875)
    # An unscored item loses every combination it is in: left out, a judge failing the hard items ranks perfectly.
    assert stats.auroc([0.9, 0.8], [0.1, None]) == pytest.approx(0.5)
    assert stats.auroc([None], [0.1]) is None
    assert stats.pairwise_accuracy([(0.9, 0.1), (0.5, 0.5), (None, 0.2)]) == 0.5
    assert stats.spearman([(1, 0.1), (2, 0.2), (3, 0.3), (4, 0.25)]) == pytest.approx(0.8)
    cut, best = stats.best_cut([(True, 0.3), (True, 0.4), (False, 0.1), (False, 0.2)], 0.5)
    assert 0.2 < cut <= 0.3 and best == 1.0
    assert stats.best_cut([(True, 0.9), (False, 0.1)], 0.5) == (0.5, 1.0)  # the default when it is as good


# -- a run in process ---------------------------------------------------------------------------------------

# The dialogue development set, beside a checkout (CI) or in /work/shared, as tests/support/devset.py finds its set.
_SHARED = [Path(__file__).resolve().parents[4] / "shared" / "data", Path("/work/shared/data")]
DEV_DIALOGUE = next((d / "topicalchat_usr_dev.jsonl" for d in _SHARED if d.is_dir()), _SHARED[0])

CLINICAL = [json.loads(line) for line in (DATA_DIR / "clinical-assessment.jsonl").read_text().splitlines()]
GOOD_TEXTS = [row["assessment"] for row in CLINICAL if row["label"] == "good"]


def checks_by_label(request: ChatRequest) -> object:
    """The rubric's checks: Yes for a good assessment (its sentences, or with it as the document), No for a bad one,
    whatever the check; a good one's likelihood gains 80 nats from the transcript, a bad one's none."""
    if request.score_text is not None:  # specificity reads the likelihood: the transcript explains a good one
        gains = request.messages[-1].content != "(no transcript)" and request.score_text in GOOD_TEXTS
        return ChatReply(text="", model="", text_logprobs=(80.0 if gains else 0.0,))
    prompt = "\n".join(m.content for m in request.messages)
    judged = prompt.rsplit("<<<\n", 1)[1].split("\n>>>", 1)[0]
    good = any(text in prompt for text in GOOD_TEXTS) or any(judged in text for text in GOOD_TEXTS)
    return yes_no(0.95 if good else 0.05)


@pytest.mark.parametrize(("without", "expected"), [(0.7, 0.0), (0.5, 0.6)], ids=["not-raised", "raised"])
async def test_a_rag_answer_scores_as_its_verdict_decides_claims_the_passages_did_not_raise(
    without: float, expected: float
) -> None:
    def reply(request: ChatRequest) -> ChatReply:
        asked_without_passages = request.top_logprobs is not None and not request.messages[-1].content.startswith(
            "Document:"
        )
        return yes_no(without if asked_without_passages else 0.6)

    request = JudgeRagAnswerRequest(
        question="What was the Eiffel Tower built as?",
        answer="It was built as a radio mast for the army.",
        sources=[Passage(content="The Eiffel Tower was built as the entrance arch for the World's Fair of 1889.")],
    )
    result = await judge_rag_answer(request, make_deps(ScriptedBackend(default=reply, probabilities=True)))
    assert result.accuracy.score == pytest.approx(0.6)
    assert (result.verdict == "approved") is (expected > 0)
    assert ADAPTERS["judge_rag_answer"].score(result) == pytest.approx(expected)


async def test_the_clinical_set_is_judged_by_evaluate_assessment(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    deps = dataclasses.replace(make_deps(ScriptedBackend(default=checks_by_label, probabilities=True)), ledger=ledger)
    report = await CalibrationRun(load_set("clinical-assessment", REGISTRY), deps, ledger, None).execute()
    ledger.close()
    assert report.complete and report.n == 16 and report.unscored == 0
    # A one-sentence bad assessment has nothing to contradict and few sentences to be vague: it can score near
    # the cut on counts of mistakes, so the pairs, not every item, must come out right.
    assert report.pairwise_accuracy is not None and report.pairwise_accuracy.value == 1.0
    assert report.balanced_accuracy.value is not None and report.balanced_accuracy.value >= 0.9
    assert report.cut.default == 0.75 and report.judge["readout"] == "probability"


async def test_a_run_that_scored_nothing_is_not_kept_as_the_judges_fitness(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    deps = dataclasses.replace(make_deps(ScriptedBackend(default=lambda _: "I cannot rate this.")), ledger=ledger)
    report = await CalibrationRun(load_set("clinical-assessment", REGISTRY), deps, ledger, 4).execute()
    assert report.unscored == report.n == 4 and not report.stored
    assert any("no item was scored" in note for note in report.notes)
    assert calibrations_for(ledger, report.fitness_key) == []
    ledger.close()


def test_an_interval_below_chance_is_never_called_better_than_chance() -> None:
    fitness = JudgeFitness(
        calibration_id="c", set="s", n=20, complete=True, balanced_accuracy=0.2, balanced_accuracy_ci95=(0.1, 0.3),
        auroc=None, auroc_ci95=(None, None),
        date="2026-12-05", near_chance=near_chance(0.1, 0.3),
    )  # fmt: skip
    assert fitness.near_chance
    assert "WORSE THAN CHANCE" in fitness_line(fitness, "k")


async def test_a_cancelled_run_keeps_its_items_as_a_partial_calibration(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    progress = ProgressLog()
    deps = dataclasses.replace(
        make_deps(ScriptedBackend(default=checks_by_label, probabilities=True), progress=progress), ledger=ledger
    )
    run = CalibrationRun(load_set("clinical-assessment", REGISTRY), deps, ledger, None)
    with anyio.CancelScope() as scope:

        async def stop_after_three(done: float, total: float | None, message: str | None) -> None:
            await progress(done, total, message)
            if done == 3:
                scope.cancel()

        deps.progress = stop_after_three
        await run.execute()
    assert run.report is not None and not run.report.complete and run.report.n == 3
    assert "PARTIAL (interrupted after 3 of 16 items)" in run.report.render_text()
    (stored,) = calibrations_for(ledger, run.report.fitness_key or "")
    ledger.close()
    assert stored["complete"] is False and stored["n"] == 3 and stored["stored"] is True


async def test_a_graded_set_reports_spearman_and_says_balanced_accuracy_needs_labels(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    deps = dataclasses.replace(make_deps(dialogue_model(by_people)), ledger=ledger)
    report = await CalibrationRun(load_set("topicalchat-usr", REGISTRY), deps, ledger, 12).execute()
    (stored,) = calibrations_for(ledger, report.fitness_key or "")
    ledger.close()
    assert report.complete and report.n == 12 and report.unscored == 0 and report.stored
    assert report.spearman is not None and report.spearman.value == 1.0
    assert report.balanced_accuracy.value is None and report.auroc.value is None and report.pairwise_accuracy is None
    assert report.cut.best is None and report.base_rate_good is None
    assert any("graded labels only" in note for note in report.notes)
    assert any("not a held-out measure" in note for note in report.notes)
    assert "| Spearman | 1.00" in report.render_text()
    assert stored["spearman"]["value"] == 1.0


async def test_a_judge_blind_to_the_people_has_a_spearman_interval_around_zero(tmp_path: Path) -> None:
    deps = make_deps(dialogue_model(blind))
    report = await CalibrationRun(load_set("topicalchat-usr", REGISTRY), deps, None, None).execute()
    assert report.spearman is not None and report.spearman.low is not None and report.spearman.high is not None
    assert report.spearman.low <= 0 <= report.spearman.high


async def test_the_tools_run_ends_partial_at_the_calls_deadline() -> None:
    deps = make_deps(ScriptedBackend(default=lambda _: yes_no(0.9), probabilities=True, latency_s=0.05))
    report = await CalibrationRun(load_set("halueval-qa", REGISTRY), deps, None, 20, deadline_s=0.5).execute()
    assert not report.complete and report.n < 20
    assert any("stopped at the call's deadline of 0.5s (GAVEL_CALL_DEADLINE_S)" in note for note in report.notes)
