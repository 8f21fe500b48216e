"""Does the support check see a link the transcript does not state? The demo's writer joined two supported facts
with a contrast the transcript never draws ("eating much less, even though they feel tired all the time"), and
the accuracy check let the sentence pass. For sentences written by hand on the clinical dev cases, each a cause,
contrast or time link between two facts the transcript states, some links stated by the patient and some
invented, five readings through the engine's own `check_claim` (the accuracy metric's `supported` question): the
linked sentence; the same two facts as two sentences with no link; each fact alone; and the sentence with its link
replaced by ", and". Four ways to tell an invented link, each graded by AUROC (stated above invented): the linked
sentence's P(supported) as the accuracy check reads it today, and its drop from each control. The sentences of the
`tune` cases were written and read first, those of the `heldout` cases after, and then (the `writer` split) link
sentences `refine_until_pass`'s writer wrote, with the ", and" control only; the ", and" drop is also counted at a
cut set on `tune`.

    python -m bench.relation_support    # reads the model, writes bench/results/relation-support.json
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

from bench.common import RESULTS_DIR, Run, say
from bench.rubric_agreement import CLINICAL
from gavel.tools.engine.check_items import Claim
from gavel.tools.engine.checks import check_claim
from gavel.tools.engine.embedded import EmbeddedBackend
from gavel.tools.engine.judge import Judge
from gavel.tools.rubric_checks import Checks
from gavel.tools.rubric_registry import RubricRegistry
from tests.support.config import engine_config

# (case, link stated by the patient?, linked sentence, first fact, second fact)
SENTENCES = [
    ("sleep-choir", True, "Constant fatigue despite long hours in bed.", "Constant fatigue.", "Long hours in bed."),
    ("sleep-choir", True, "The patient is tired even after hours in bed.", "The patient is tired.",
     "The patient spends hours in bed."),
    ("sleep-choir", False, "Reduced appetite because of constant fatigue.", "Reduced appetite.", "Constant fatigue."),
    ("sleep-choir", False, "Stopped going to choir because of waking at 4 a.m.", "Stopped going to choir.",
     "Wakes at 4 a.m."),
    ("sleep-choir", False, "Eating much less, even though tired all the time after hours in bed.",
     "Eating much less.", "Tired all the time after hours in bed."),
    ("work-concentration", True, "Still tired despite sleeping ten to eleven hours on weekends.", "Still tired.",
     "Sleeps ten to eleven hours on weekends."),
    ("work-concentration", True, "Since the father's death in March the patient cannot concentrate at work.",
     "The father died in March.", "The patient cannot concentrate at work."),
    ("work-concentration", False, "Feels like a failure because of sleeping ten to eleven hours on weekends.",
     "Feels like a failure.", "Sleeps ten to eleven hours on weekends."),
    ("work-concentration", False, "Cannot concentrate at work because of sleeping too long on weekends.",
     "Cannot concentrate at work.", "Sleeps long on weekends."),
    ("appetite-weight", True, "Cancels every meeting with friends because she does not want to go.",
     "Cancels every meeting with friends.", "She does not want to go."),
    ("appetite-weight", True, "Lost about six kilos in the last month while barely eating.",
     "Lost about six kilos in the last month.", "Barely eats."),
    ("appetite-weight", False, "Cancels meetings with friends because of the weight loss.",
     "Cancels meetings with friends.", "Weight loss."),
    ("appetite-weight", False, "Barely eats because her mood is down.", "Barely eats.", "Her mood is down."),
    ("restless-slow", False, "Getting dressed takes an hour because mood is worst in the morning.",
     "Getting dressed takes an hour.", "Mood is worst in the morning."),
    ("guilt-worthless", False, "Stopped painting because she feels worthless.", "Stopped painting.",
     "Feels worthless."),
    ("guilt-worthless", False, "Blames herself for everything at home since she stopped painting.",
     "Blames herself for everything at home.", "Stopped painting."),
    ("student-exams", False, "Failed two exams because of lying awake until 3 a.m.", "Failed two exams.",
     "Lies awake until 3 a.m."),
    ("retired-fatigue", True, "Stays in bed until noon because since retiring last autumn there is no reason to "
     "get up.", "Stays in bed until noon.", "Retired last autumn."),
    ("retired-fatigue", False, "Stays in bed until noon because of low mood.", "Stays in bed until noon.",
     "Low mood."),
    ("retired-fatigue", False, "No longer looks forward to the grandchildren's visits because of staying in bed "
     "until noon.", "No longer looks forward to the grandchildren's visits.", "Stays in bed until noon."),
    ("nurse-irritable", True, "After night shifts she sleeps only two or three hours.", "She works night shifts.",
     "She sleeps only two or three hours."),
    ("nurse-irritable", False, "Snaps at the kids because of sleeping only two or three hours after night shifts.",
     "Snaps at the kids.", "Sleeps only two or three hours after night shifts."),
    ("nurse-irritable", False, "Feels hopeless because she snaps at the children.", "Feels hopeless.",
     "Snaps at the children."),
    ("teacher-agitation", False, "Paces the kitchen in the evenings because of being drained by lunchtime.",
     "Paces the kitchen in the evenings.", "Drained by lunchtime."),
    ("teacher-agitation", False, "Loses track in lessons because of pacing the kitchen at night.",
     "Loses track in lessons.", "Paces the kitchen at night."),
    ("shop-appetite", True, "Feels she has let the family down since the shop closed.",
     "Feels she has let the family down.", "The shop closed."),
    ("shop-appetite", True, "Falls asleep fine but wakes two or three times every night.", "Falls asleep fine.",
     "Wakes two or three times every night."),
    ("shop-appetite", True, "Has not been into the garden for a month because she does not care about it.",
     "Has not been into the garden for a month.", "Does not care about the garden."),
    ("shop-appetite", False, "Skips lunch because she feels useless.", "Skips lunch.", "Feels useless."),
    ("shop-appetite", False, "Has no appetite since the shop closed.", "Has no appetite.", "The shop closed."),
    ("shop-appetite", False, "Has lost three kilos even though she falls asleep fine.", "Has lost three kilos.",
     "Falls asleep fine."),
]  # fmt: skip

# Sentences `refine_until_pass`'s writer wrote (bench/results/refine-feedback-*.json and two `make demo` runs), read
# after the two sets above, labelled by hand: the link is the sentence's last. Only the linked sentence and its
# ", and" control are read (the facts were not written apart).
WRITER = [
    ("retired-fatigue", False, "They feel low most of the time (5 days a week), but there is less enjoyment in life "
     "than before."),
    ("shop-appetite", True, "The patient has lost three kilos over two weeks, skipping lunch most days, falling "
     "asleep fine but waking up multiple times at night."),
    ("guilt-worthless", True, "She used to paint every weekend but hasn't touched a brush since Christmas."),
    ("student-exams", False, "Studying has been difficult and some exams have not gone well, leading to changes in "
     "eating habits that include snacking all night and failing two exams this term."),
    ("sleep-choir", True, "Their energy is low, even after hours in bed, and they feel tired all the time."),
    ("work-concentration", False, "The patient has been struggling to focus since their father died in March, "
     "which has led to them reading emails five times a day."),
    ("work-concentration", True, "Their sleep patterns have changed somewhat, with them sleeping ten or eleven "
     "hours on weekends but still feeling tired."),
    ("guilt-worthless", False, "The patient feels worthless for four months due to her negative view of herself "
     "and guilt."),
    ("sleep-choir", False, "They are eating much less, even though they feel tired all the time after hours in bed."),
    ("sleep-choir", False, "They feel tired all the time after hours in bed, even though they usually do not feel "
     "like doing anything at all."),
    ("sleep-choir", False, "Their energy is low, even after hours in bed, and they feel tired all the time, even when "
     "doing nothing."),
]  # fmt: skip


# The links a writer can invent between two facts; "since" and "after" are left out, being as often a date as a cause.
LINK = re.compile(
    r",?\s+(?:even\s+though|although|though|despite|because(?:\s+of)?|but|while|even\s+after|due\s+to|leading\s+to"
    r"|which\s+has\s+led\s+to)\s+",
    re.IGNORECASE,
)


def and_joined(sentence: str) -> str:
    """The sentence with its last link replaced by ", and": a control built from the sentence alone (the last,
    because a writer's invented link tends to follow the facts it joins)."""
    links = list(LINK.finditer(sentence))
    if not links:
        return sentence
    return f"{sentence[: links[-1].start()]}, and {sentence[links[-1].end() :]}"


async def probe() -> list[dict[str, Any]]:
    rubric = RubricRegistry.load().get("clinical-assessment")
    supported = Checks(kind="supported")
    rows = [json.loads(line) for line in CLINICAL.read_text().splitlines() if line.strip()]
    sources = {row["case"]: (row["source"], row["split"]) for row in rows}
    judge = Judge(EmbeddedBackend(timeout_s=300), engine_config(call_deadline_s=86_400))

    async def p(text: str, source: str) -> float:
        readout, _ = await check_claim(judge.calls, rubric, supported, Claim(text, source), source, {}, None, "probe")
        assert readout.value is not None, readout.reason
        return round(readout.value, 4)

    records = []
    for case, stated, linked, first, second in SENTENCES:
        source, split = sources[case]
        record = {
            "case": case, "split": split, "stated": stated, "linked": linked,
            "p_linked": await p(linked, source), "p_unlinked": await p(f"{first} {second}", source),
            "p_first": await p(first, source), "p_second": await p(second, source),
            "and_joined": and_joined(linked), "p_and": await p(and_joined(linked), source),
        }  # fmt: skip
        records.append(record)
        say(f"  {split:8s} {'stated' if stated else 'invented':8s} {record['p_linked']:.3f} {linked}")
    for case, stated, linked in WRITER:
        source, _ = sources[case]
        joined = and_joined(linked)
        record = {
            "case": case, "split": "writer", "stated": stated, "linked": linked,
            "p_linked": await p(linked, source), "and_joined": joined, "p_and": await p(joined, source),
        }  # fmt: skip
        records.append(record)
        say(f"  writer   {'stated' if stated else 'invented':8s} {record['p_linked']:.3f} {linked}")
    return records


# Each reading: the records' keys it needs (the writer's sentences have no facts written apart), and its value.
READINGS: dict[str, tuple[set[str], Callable[[dict[str, Any]], float]]] = {
    "P(supported) of the linked sentence": ({"p_linked"}, lambda r: r["p_linked"]),
    "drop from the unlinked control": ({"p_unlinked"}, lambda r: r["p_linked"] - r["p_unlinked"]),
    "drop from the lesser fact": ({"p_first"}, lambda r: r["p_linked"] - min(r["p_first"], r["p_second"])),
    "drop from the sentence joined by 'and'": ({"p_and"}, lambda r: r["p_linked"] - r["p_and"]),
}
# The cut on the ", and" drop, set on the tune sentences between the lowest stated drop and the next invented one.
AND_CUT = -0.045


def auroc(stated: list[float], invented: list[float]) -> float:
    pairs = [(s > i) + 0.5 * (s == i) for s in stated for i in invented]
    return round(sum(pairs) / len(pairs), 3)


def grade(records: list[dict[str, Any]]) -> dict[str, Any]:
    graded: dict[str, Any] = {}
    for split in ("tune", "heldout", "writer"):
        rows = [r for r in records if r["split"] == split]
        graded[split] = {"stated": sum(r["stated"] for r in rows), "invented": sum(not r["stated"] for r in rows)}
        for name, (needs, reading) in READINGS.items():
            if needs <= rows[0].keys():
                values = {kind: [reading(r) for r in rows if r["stated"] is kind] for kind in (True, False)}
                graded[split][name] = auroc(values[True], values[False])
                say(f"{split:8s} {name:40s} AUROC {graded[split][name]:.3f}")
        # At the cut, among the sentences a link was found in (a sentence linked only by "since" or "after" is not).
        linked = [r for r in rows if r["and_joined"] != r["linked"]]
        drops = {kind: [r["p_linked"] - r["p_and"] for r in linked if r["stated"] is kind] for kind in (True, False)}
        flagged = {kind: [drop < AND_CUT for drop in values] for kind, values in drops.items()}
        graded[split]["at the cut"] = {
            "cut": AND_CUT,
            "invented flagged": f"{sum(flagged[False])} of {len(flagged[False])}",
            "stated flagged": f"{sum(flagged[True])} of {len(flagged[True])}",
        }
        say(f"{split:8s} at {AND_CUT}: {graded[split]['at the cut']}")
    return graded


def main() -> None:
    run = Run("relation-support", RESULTS_DIR, smoke=False)
    records = asyncio.run(probe())
    path = run.write({"auroc": grade(records), "records": records})
    say(f"wrote {path}")


if __name__ == "__main__":
    main()
