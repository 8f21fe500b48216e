from bench.common import looping, most_repeated_in, most_repeated_run


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
