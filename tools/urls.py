"""URLs fit for messages, logs and `gavel config`: whatever password a URL carries replaced by ****."""

from __future__ import annotations

from urllib.parse import unquote

# libpq reads a password from these query parameters (their names percent-decoded) as well as from `user:password@`.
SECRET_QUERY_KEYS = frozenset({"password", "sslpassword"})


def redact_url(url: str) -> str:
    """`url` with the password in `user:password@` and the values of its `password` and `sslpassword` query
    parameters (any case) replaced by ****. Plain string work, so a URL no parser accepts is masked too."""
    rest, hash_mark, fragment = url.partition("#")
    rest, question_mark, query = rest.partition("?")
    scheme, slashes, rest = rest.partition("://")
    if slashes:
        authority, slash, path = rest.partition("/")
        userinfo, at, host = authority.rpartition("@")
        if at and ":" in userinfo:
            authority = f"{userinfo.partition(':')[0]}:****@{host}"
        rest = f"{authority}{slash}{path}"
    pairs = [_masked(pair) for pair in query.split("&")] if query else []
    return f"{scheme}{slashes}{rest}{question_mark}{'&'.join(pairs)}{hash_mark}{fragment}"


def _masked(pair: str) -> str:
    key, equals, _ = pair.partition("=")
    return f"{key}=****" if equals and unquote(key).strip().lower() in SECRET_QUERY_KEYS else pair
