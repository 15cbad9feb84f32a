"""Text that came from elsewhere made fit for a terminal.

A provider's diagnostics, its last output before it crashed, a message a cloud API returned: any of
them may hold control characters, and a terminal acts on those (an escape sequence sets the window
title, clears the screen, rewrites what was shown above). Such text is shown with each control
character written as an escape (``\\x1b``), never raw; tab and newline stay, since messages are laid
out with them. Escaping is idempotent: the escapes are plain characters.
"""

from __future__ import annotations

# C0 controls but tab and newline, DEL and the C1 controls: what a terminal may act on.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))}
_CONTROLS[0x0D] = "\\r"


def printable(text: str) -> str:
    """``text`` with every control character a terminal could act on shown as its escape."""
    return text.translate(_CONTROLS)
