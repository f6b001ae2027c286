"""Database URLs in messages: the password hidden without parsing a URL that may not parse.

A password may hold an unencoded `%`, `@` or `/`, and a host may be malformed (`[::1:bad`):
`urllib.parse` then raises or splits in the wrong place, and the driver quotes the bad part back
in its error. So `redacted` cuts the URL by hand (the user information ends at the last `@`,
over-hiding rather than under-hiding), and `scrubbed` removes every spelling of the password
(as written, and percent-decoded) from any text before it is shown.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

HIDDEN = "***"
_QUERY_PASSWORD = re.compile(r"(?i)(\bpassword=)([^&\s]*)")
_ENCODED = re.compile(r"(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*")
"""A password as RFC 3986 allows it in a URL: anything else percent-encoded."""
ENCODE_HINT = "python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=\"\"))' PASSWORD"


def _userinfo(url: str) -> tuple[str, str, str] | None:
    """(`scheme://user`, the password, `@rest`) for a URL with a password, else None."""
    scheme, sep, rest = url.partition("://")
    at = rest.rfind("@")
    if not sep or at < 0 or ":" not in rest[:at]:
        return None
    user, _, password = rest[:at].partition(":")
    return f"{scheme}://{user}", password, rest[at:]


def passwords(url: str) -> list[str]:
    """Every spelling of the URL's passwords (user information and `password=` query), longest first."""
    found = []
    parts = _userinfo(url)
    if parts is not None:
        found.append(parts[1])
    found += [match.group(2) for match in _QUERY_PASSWORD.finditer(url)]
    spellings = {s for p in found for s in (p, unquote(p)) if s}
    return sorted(spellings, key=len, reverse=True)


def password_problem(url: str) -> str | None:
    """Why the URL's password cannot be read as written (a character that must be percent-encoded), or None.

    Such a URL is refused before any driver sees it: the driver would split it elsewhere and quote a
    piece of the password back in its error.
    """
    parts = _userinfo(url)
    if parts is None or _ENCODED.fullmatch(parts[1]):
        return None
    return (f"the password in {redacted(url)} must be percent-encoded (a `%`, `@`, `/`, `:`, `?` or `#` in it "
            f"is read as part of the URL); encode it with {ENCODE_HINT}")


def redacted(url: str) -> str:
    """`url` with its password replaced by `***` (never raises)."""
    parts = _userinfo(url)
    text = url if parts is None else f"{parts[0]}:{HIDDEN}{parts[2]}"
    return _QUERY_PASSWORD.sub(lambda m: m.group(1) + HIDDEN, text)


def scrubbed(text: str, url: str) -> str:
    """`text` (a driver's error, say) with every spelling of `url`'s password replaced by `***`."""
    for secret in passwords(url):
        text = text.replace(secret, HIDDEN)
    return text
