"""Keeping secrets out of error messages.

Marks keep a secret masked in every value ctl shows, but an error message is plain text: a
function that cannot convert its argument quotes it, a validation ``error_message`` may interpolate
the variable it checks, a cloud SDK may echo a request parameter. Messages built from sensitive
values go through here before anyone sees them. Where the message is ours to word (a condition's
``error_message``, a function's failure) the whole reason is withheld, since a secret can leak in
altered form (a substring, a lower-cased copy); where it comes from elsewhere (an adapter, an SDK)
every sensitive text it was given is cut out of it.
"""

from __future__ import annotations

from typing import Any

from vocab.errors import CtlError
from vocab.values import SENSITIVE, Marked, deep_unmark, to_display

MASK = "(sensitive value)"
HIDDEN_MESSAGE = "The error message included a sensitive value, so it is not shown."


def condition_message(value: Any) -> str:
    """The text of an evaluated ``error_message``; withheld whole when it includes a secret."""
    plain, marks = deep_unmark(value)
    if SENSITIVE in marks:
        return HIDDEN_MESSAGE
    shown = to_display(plain)
    return shown if isinstance(shown, str) else str(shown)


def secret_texts(value: Any) -> set[str]:
    """Every sensitive scalar inside ``value``, as the text a message would show it as."""
    out: set[str] = set()
    _collect(value, False, out)
    return out


def _collect(value: Any, sensitive: bool, out: set[str]) -> None:
    if isinstance(value, Marked):
        _collect(value.value, sensitive or SENSITIVE in value.marks, out)
    elif isinstance(value, list):
        for x in value:
            _collect(x, sensitive, out)
    elif isinstance(value, dict):
        for x in value.values():
            _collect(x, sensitive, out)
    elif sensitive and value is not None and not isinstance(value, bool) and str(value):
        out.add(str(value))


def redact(text: str, secrets: set[str]) -> str:
    """``text`` with every secret in it replaced by the mask (longest first, so no piece survives)."""
    for s in sorted(secrets, key=len, reverse=True):
        if s in text:
            text = text.replace(s, MASK)
    return text


def redact_error(err: CtlError, secrets: set[str]) -> CtlError:
    """Cut ``secrets`` out of an error's summary, detail and hint (in place; returned for ``raise``)."""
    if secrets:
        err.summary = redact(err.summary, secrets)
        err.detail = redact(err.detail, secrets)
        err.hint = redact(err.hint, secrets)
        err.args = (err.summary,)
    return err


def redacted_exception(exc: BaseException, secrets: set[str]) -> BaseException:
    """An exception safe to show: a ``CtlError`` redacted in place, anything else quoting a secret
    replaced by a ``CtlError`` that says what kind of failure it was, without the secret."""
    if not secrets:
        return exc
    if isinstance(exc, CtlError):
        return redact_error(exc, secrets)
    text = str(exc)
    cleaned = redact(text, secrets)
    if cleaned == text:
        return exc
    return CtlError(f"{type(exc).__name__}: {cleaned}")


__all__ = ["HIDDEN_MESSAGE", "MASK", "condition_message", "redact", "redact_error", "redacted_exception",
           "secret_texts"]
