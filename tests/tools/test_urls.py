"""A URL shown in messages, logs or `gavel config` keeps its shape and loses every password libpq or a proxy reads."""

from __future__ import annotations

import pytest

from gavel.tools.urls import redact_url


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://bob:pw@h/db", "postgresql://bob:****@h/db"),
        ("postgresql://bob@h/db?password=hunter2", "postgresql://bob@h/db?password=****"),
        ("postgresql://h/db?SSLPassword=hunter2&user=bob", "postgresql://h/db?SSLPassword=****&user=bob"),
        ("postgresql://h/db?pass%77ord=hunter2", "postgresql://h/db?pass%77ord=****"),
        ("http://bob:hunter2@[::1]:9/v1", "http://bob:****@[::1]:9/v1"),
        ("http://[::1/v1?password=hunter2", "http://[::1/v1?password=****"),
        ("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
        ("postgresql://bob@h/db?sslmode=require#x", "postgresql://bob@h/db?sslmode=require#x"),
    ],
)
def test_every_password_in_a_url_is_masked_and_the_rest_kept(url: str, shown: str) -> None:
    assert redact_url(url) == shown
