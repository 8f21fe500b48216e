from bench.common import most_repeated_run


def test_a_text_that_never_repeats_itself_counts_one() -> None:
    assert most_repeated_run("The patient has slept badly for three weeks and eats less than before.") == 1


def test_a_looping_text_counts_each_repeat_of_its_run() -> None:
    loop = "they feel tired all the time and " * 3
    assert most_repeated_run("Summary: " + loop) == 3


def test_a_text_shorter_than_the_run_counts_zero() -> None:
    assert most_repeated_run("Too short.") == 0
