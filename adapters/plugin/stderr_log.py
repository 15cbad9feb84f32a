"""A provider's own output, forwarded to Python logging at the level each line carries.

Providers log through hclog: JSON objects (``{"@level": "debug", "@message": ...}``) when run as
plugins, or text lines tagged like ``[DEBUG]`` from older SDK code. Untagged text is most often a
crash report, so it is kept as INFO and, like every line, in a short tail that launch errors quote.
"""

from __future__ import annotations

import json
import logging
import re
from collections import deque
from typing import IO

_LEVELS = {
    "trace": logging.DEBUG,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}
_TAG = re.compile(r"\[(TRACE|DEBUG|INFO|WARN|WARNING|ERROR)\]\s*")
_JSON_LEVEL = re.compile(r'"@level"\s*:\s*"(\w+)"')
TAIL_LINES = 30


def quick_level(line: str) -> int:
    """The level of a line without decoding it: busy providers log several lines per call."""
    head = line[:120]
    found = _JSON_LEVEL.search(head) if head.startswith("{") else _TAG.search(head[:64])
    return _LEVELS.get(found.group(1).lower(), logging.INFO) if found else logging.INFO


def parse_line(line: str) -> tuple[int, str]:
    """The logging level and message of one output line."""
    text = line.rstrip("\r\n")
    if text.startswith("{"):
        try:
            entry = json.loads(text)
        except ValueError:
            entry = None
        if isinstance(entry, dict) and "@message" in entry:
            level = _LEVELS.get(str(entry.get("@level", "info")).lower(), logging.INFO)
            extras = {k: v for k, v in entry.items() if not k.startswith("@")}
            message = str(entry["@message"])
            if extras:
                message += " " + " ".join(f"{k}={v}" for k, v in extras.items())
            return level, message
    tag = _TAG.search(text[:64])
    if tag:
        return _LEVELS[tag.group(1).lower()], (text[: tag.start()] + text[tag.end() :]).strip()
    return logging.INFO, text


class OutputForwarder:
    """Reads one of a provider's output streams until it closes; keeps the last lines.

    Lines below the logger's level are not decoded, only kept (raw) in the tail, so a provider
    that logs at trace level costs ctl little when nobody reads those logs.
    """

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger
        self._tail: deque[str] = deque(maxlen=TAIL_LINES)

    @property
    def tail(self) -> list[str]:
        """The last lines, decoded: what a launch or crash error quotes."""
        return [parse_line(line)[1] for line in self._tail]

    def feed(self, line: str) -> None:
        if not line.strip():
            return
        self._tail.append(line)
        if self.logger.isEnabledFor(quick_level(line)):
            level, message = parse_line(line)
            self.logger.log(level, "%s", message)

    def pump(self, stream: IO[bytes]) -> None:
        """Thread body: forward every line until EOF (the provider exited or closed the pipe)."""
        with stream:
            for raw in iter(stream.readline, b""):
                self.feed(raw.decode("utf-8", "replace"))
