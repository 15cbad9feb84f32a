"""How an engine event reads in a progress line: the verbs for each action, elapsed time, the object id.

Both views (``cli/progress/plain.py``, ``cli/progress/live.py``) and the JSON stream
(``cli/views/json_ui.py``) word their lines from these, so "Creation complete after 2s [id=logs]" reads the
same wherever it appears.
"""

from __future__ import annotations

from typing import Any

from vocab.values import SENSITIVE, Marked, Unknown

STILL_INTERVAL = 10.0  # seconds between "Still creating..." lines (Terraform's pace)
MASK = "(sensitive value)"

# action -> (present participle, noun, lower-case participle for "Still ...")
VERBS: dict[str, tuple[str, str, str]] = {
    "create": ("Creating", "Creation", "creating"),
    "update": ("Modifying", "Modifications", "modifying"),
    "delete": ("Destroying", "Destruction", "destroying"),
    "read": ("Reading", "Read", "reading"),
    "forget": ("Forgetting", "Removal from the state", "forgetting"),
}
_UNKNOWN_VERB = ("Working on", "Operation", "working on")


def verbs(action: str) -> tuple[str, str, str]:
    return VERBS.get(action, _UNKNOWN_VERB)


def format_elapsed(seconds: float) -> str:
    """``2s``, ``1m10s``: whole seconds, as Terraform prints them."""
    whole = max(int(seconds), 0)
    return f"{whole // 60}m{whole % 60}s" if whole >= 60 else f"{whole}s"


def shown_id(value: Any) -> str | None:
    """An object id fit for a progress line: secrets masked, unknown or empty ids left out."""
    if isinstance(value, Marked):
        if SENSITIVE in value.marks:
            return MASK
        value = value.value
    if value is None or isinstance(value, Unknown) or value == "":
        return None
    return str(value)
