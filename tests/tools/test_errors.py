"""Exception groups flattened to the errors behind them."""

from __future__ import annotations

from gavel.tools.errors import BackendError, InvalidInput, caller_errors, leaves


def test_leaves_are_every_exception_below_nested_groups_in_order() -> None:
    first, second, third = InvalidInput("a"), KeyboardInterrupt(), ValueError("c")
    group = BaseExceptionGroup("outer", [first, BaseExceptionGroup("inner", [second]), third])
    assert leaves(group) == [first, second, third]
    assert leaves(first) == [first]


def test_caller_errors_only_when_every_leaf_is_written_for_the_caller() -> None:
    refused, failed = InvalidInput("bad", field="text"), BackendError("down")
    assert caller_errors(ExceptionGroup("g", [refused, ExceptionGroup("h", [failed])])) == [refused, failed]
    assert caller_errors(ExceptionGroup("g", [refused, RuntimeError("bug")])) is None
    assert caller_errors(RuntimeError("bug")) is None
