"""How things read in a markdown summary: table cells and code spans that cannot break the table,
and the labels for actions and policy outcomes."""

from __future__ import annotations

ACTION_LABELS = {  # Terraform's plan symbols, which reviewers already read at a glance
    "create": "`+` create",
    "update": "`~` update",
    "delete": "`-` destroy",
    "replace": "`-/+` replace",
    "read": "`<=` read",
    "move": "`->` move",
}
STATUS_LABELS = {"failed": "❌ failed", "overridden": "⚠️ overridden", "advisory": "💬 advisory"}


def cell(text: object) -> str:
    """Text safe inside a table cell: no pipes, no line breaks, no HTML."""
    s = str(text if text is not None else "")
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return s.replace("|", "\\|").replace("\r", "").replace("\n", "<br>")


def code(text: str) -> str:
    """A code span for an address (``aws_s3_bucket.b["x"]``), safe inside a table."""
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"
