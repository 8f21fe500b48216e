import json
from pathlib import Path

from bench.common import looping, most_repeated_in, most_repeated_run, probe_main, stored_records, versus_good


def test_a_text_that_never_repeats_itself_counts_one() -> None:
    assert most_repeated_run("The patient has slept badly for three weeks and eats less than before.") == 1


def test_a_looping_text_counts_each_repeat_of_its_run() -> None:
    loop = "they feel tired all the time and " * 3
    assert most_repeated_run("Summary: " + loop) == 3


def test_a_text_shorter_than_the_run_counts_zero() -> None:
    assert most_repeated_run("Too short.") == 0


def test_a_history_counts_its_worst_version() -> None:
    loop = "they feel tired all the time and " * 3
    assert most_repeated_in(["Too short.", "Summary: " + loop, "The patient sleeps badly."]) == 3


def test_only_records_repeating_a_run_more_than_twice_are_looping() -> None:
    assert looping([{"most_repeated_run": 1}, {"most_repeated_run": 2}, {"most_repeated_run": 3}]) == 1


def test_a_broken_version_is_compared_with_the_good_version_of_its_own_case_and_split() -> None:
    records = [
        {"split": "dev", "case": "a", "version": "good", "x": 0.6},
        {"split": "dev", "case": "a", "version": "vague", "x": 0.4},
        {"split": "fresh", "case": "a", "version": "good", "x": 0.3},
        {"split": "fresh", "case": "a", "version": "vague", "x": 0.5},
        {"split": "fresh", "case": "b", "version": "good", "x": 0.9},  # no vague version: not a pair
    ]
    assert versus_good(records, "vague", lambda r: r["x"]) == {
        "cases": 2, "below_good": 1, "good": [0.3, 0.6], "broken": [0.4, 0.5]
    }  # fmt: skip


def test_stored_records_are_a_finished_runs_records_or_a_stopped_runs_list(tmp_path: Path) -> None:
    finished, stopped = tmp_path / "finished.json", tmp_path / "stopped.json"
    finished.write_text(json.dumps({"records": [{"case": "a"}], "figures": {}}), encoding="utf-8")
    stopped.write_text(json.dumps([{"case": "b"}]), encoding="utf-8")
    assert stored_records(finished) == [{"case": "a"}] and stored_records(stopped) == [{"case": "b"}]


def test_a_probe_writes_figures_and_records_and_recomputes_them_from_the_stored_file(tmp_path: Path, capsys) -> None:
    def figures(records: list[dict]) -> dict:
        return {"count": len(records)}

    async def read(partial: Path) -> list[dict]:
        partial.write_text("[]", encoding="utf-8")  # noqa: ASYNC240 (as the probes keep their records)
        return [{"case": "a"}, {"case": "b"}]

    probe_main("probe", False, figures, read, {"splits": ["dev"]}, results=tmp_path)
    written = json.loads((tmp_path / "probe.json").read_text(encoding="utf-8"))
    assert written["splits"] == ["dev"] and written["figures"] == {"count": 2} and len(written["records"]) == 2
    assert not (tmp_path / "probe.partial.json").exists()
    probe_main("probe", True, figures, read, {}, results=tmp_path)
    assert json.loads(capsys.readouterr().out) == {"count": 2}
