"""``CTL_LOG`` and ``CTL_LOG_PATH``: structured logs of what a run did and where its time went.

``CTL_LOG=debug|info|warn|error`` turns logging on at that level (``trace`` is accepted as
``debug``, ``warning`` as ``warn``, ``off`` turns it off); records are JSON lines on stderr, or
appended to the file ``CTL_LOG_PATH`` names (logging at ``info`` when only the path is given). Each
record carries ``@timestamp``, ``@level``, ``@module`` and ``@message`` — the shape of Terraform's
``TF_LOG=json`` — plus its structured fields: the engine logs one record per phase (``load``,
``refresh``, ``plan``, ``apply``, ``persist`` with ``phase`` and ``seconds``) and one per operation
(``address``, ``action``, ``seconds``, ``ok``), so a slow CI run can be explained from its log alone.

Logs go to stderr (or a file), never stdout: stdout is for the human report or the ``--json``
stream, and a pipeline reading it must not see log lines. Tracebacks of unexpected errors are
still printed only with ``CTL_LOG=debug``, so a log file at ``info`` is safe to attach to a bug report.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping
from datetime import datetime
from typing import Any

# One encoder for every record (``json.dumps`` with options builds one per call).
_RECORD = json.JSONEncoder(default=str, ensure_ascii=False).encode

# The project's own packages: third-party SDK loggers (boto3, urllib3 …) stay quiet.
# "ctl.plugin" carries what provider plugins write to their stderr (hclog lines, at their own level).
LOGGERS = ("engine", "cli", "backends", "adapters", "policies", "ctl.plugin")
LEVELS = {
    "trace": logging.DEBUG,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}
_OFF = ("", "off", "0", "false", "none")
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}
_installed: list[logging.Handler] = []


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per record: the standard fields plus everything passed in ``extra``."""

    def __init__(self, *, tracebacks: bool) -> None:
        super().__init__()
        self.tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "@timestamp": datetime.fromtimestamp(record.created).astimezone().isoformat(timespec="microseconds"),
            "@level": _level_name(record.levelno),
            "@module": record.name,
            "@message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                doc[key] = value
        if record.exc_info and self.tracebacks:
            doc["traceback"] = self.formatException(record.exc_info)
        elif record.exc_info and record.exc_info[1] is not None:
            doc["error"] = f"{type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
        return _RECORD(doc)


def _level_name(levelno: int) -> str:
    if levelno >= logging.ERROR:
        return "error"
    if levelno >= logging.WARNING:
        return "warn"
    if levelno >= logging.INFO:
        return "info"
    return "debug"


def level_from_env(environ: Mapping[str, str]) -> int | None:
    """The level ``CTL_LOG`` asks for; ``None`` when logging is off. Unknown values warn and mean off."""
    text = environ.get("CTL_LOG", "").strip().lower()
    if text in _OFF:
        return logging.INFO if environ.get("CTL_LOG_PATH") and text == "" else None
    if text in LEVELS:
        return LEVELS[text]
    sys.stderr.write(f"Warning: CTL_LOG={text!r} is not a log level (use debug, info, warn or error); "
                     "not logging.\n")
    return None


def configure(environ: Mapping[str, str] | None = None) -> None:
    """Set up (or, for a new run in the same process, reset) logging from the environment."""
    env = os.environ if environ is None else environ
    for old in _installed:
        for name in LOGGERS:
            logging.getLogger(name).removeHandler(old)
        old.close()
    _installed.clear()
    if environ is None:
        quiet_grpc(debug=env.get("CTL_LOG", "").strip().lower() in ("debug", "trace"))
    level = level_from_env(env)
    if level is None:
        _silence()
        return
    path = env.get("CTL_LOG_PATH", "").strip()
    handler: logging.Handler
    if path:
        try:
            handler = logging.FileHandler(path, mode="a", encoding="utf-8")
        except OSError as exc:
            sys.stderr.write(f"Warning: cannot write the log file CTL_LOG_PATH={path}: "
                             f"{exc.strerror or exc}; logging to stderr instead.\n")
            handler = logging.StreamHandler(sys.stderr)
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLinesFormatter(tracebacks=env.get("CTL_LOG", "").strip().lower() in ("debug", "trace")))
    handler.setLevel(level)
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(level)
        logger.addHandler(handler)
        logger.propagate = False  # the root logger (a host application's) does not print them again
    _installed.append(handler)
    logging.getLogger("cli").debug("logging at %s", logging.getLevelName(level).lower(),
                                   extra={"ctl_log": env.get("CTL_LOG", ""), "ctl_log_path": path or None})


GRPC_VERBOSITY = "GRPC_VERBOSITY"
_user_grpc_verbosity: list[str | None] = []  # what the environment held before ctl changed it


def quiet_grpc(*, debug: bool) -> None:
    """Keep gRPC's own logging off the terminal unless ``CTL_LOG=debug`` asks for everything.

    gRPC's C core logs through absl straight to file descriptor 2, outside Python's logging: when a
    provider's server goes away it prints ``I1207 … chttp2_transport.cc:1403] …: Got goaway …`` on
    ctl's stderr although ctl recovers (or reports the failure in its own words). Its only switch
    is ``GRPC_VERBOSITY``, read once when ``grpc`` is first imported (by the plugin client, or by a
    cloud SDK a backend loads), so it is set here, at the start of every run and before any such
    import: ``NONE`` for a normal run, whatever the user had (gRPC's default prints these lines,
    ``GRPC_TRACE`` adds its tracers) under debug. Importing grpc here to set it and restore the
    environment at once would slow every command, ``ctl --help`` included (bench/README.md), so the
    processes ctl starts (providers, local-exec commands) inherit the setting.
    """
    if not _user_grpc_verbosity:
        _user_grpc_verbosity.append(os.environ.get(GRPC_VERBOSITY))
    if not debug:
        os.environ[GRPC_VERBOSITY] = "NONE"
        return
    original = _user_grpc_verbosity[0]
    if original is None:
        os.environ.pop(GRPC_VERBOSITY, None)
    else:
        os.environ[GRPC_VERBOSITY] = original


def _silence() -> None:
    """Logging off: warnings still reach stderr as one line each, nothing else does.

    A logger with no handler anywhere up its chain falls back to ``logging.lastResort``, which
    prints warnings and errors *with their tracebacks*: the error boundary's ``exc_info=True``
    record would then print a full traceback under the promised one-line message. This handler
    keeps what the fallback was good for (a lost lock or a forced unlock is worth a line on stderr)
    and drops records that carry a traceback, which are meant for logs only.
    """
    quiet = logging.StreamHandler(sys.stderr)
    quiet.setLevel(logging.WARNING)
    quiet.addFilter(lambda record: not record.exc_info)
    quiet.setFormatter(logging.Formatter("%(message)s"))
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.NOTSET)
        logger.propagate = True
        if name != "ctl.plugin":  # a provider's own warnings are for logs, not the terminal
            logger.addHandler(quiet)
    _installed.append(quiet)


__all__ = ["LEVELS", "JsonLinesFormatter", "configure", "level_from_env", "quiet_grpc"]
