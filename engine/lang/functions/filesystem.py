"""Filesystem functions: abspath basename dirname file fileexists filebase64 fileset pathexpand
templatefile.

``abspath``, ``basename`` and ``dirname`` only manipulate path strings; everything that reads the
disk goes through ``_paths`` and so cannot leave the configuration directory.
``templatefile`` reads the file here but renders it through ``FunctionContext.render_template``,
supplied by the expression evaluator, so templates get the full template language.
"""

from __future__ import annotations

import base64
import os
import posixpath
import re
from functools import lru_cache
from typing import Any

from engine.lang.functions import _paths
from engine.lang.functions._args import make_set, want_map, want_str
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn

_TEMPLATE_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_GLOB_CHARS = set("*?[{\\")


def _abspath(a: Args, ctx: FunctionContext) -> str:
    path = want_str(a[0], 0)
    base = os.path.abspath(ctx.base_dir)
    return os.path.normpath(os.path.join(base, path)).replace(os.sep, "/")


def _pathexpand(a: Args, _c: FunctionContext) -> str:
    """``~`` or ``~/…`` with the user's home directory; ``~user`` forms are refused, as in Terraform."""
    path = want_str(a[0], 0)
    if not path.startswith("~"):
        return path
    if len(path) > 1 and path[1] not in "/\\":
        raise ArgError(0, "cannot expand user-specific home dir")
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return home + path[1:]


def _basename(a: Args, _c: FunctionContext) -> str:
    path = want_str(a[0], 0)
    if path == "":
        return "."
    path = path.rstrip("/")
    if path == "":
        return "/"
    return path[path.rfind("/") + 1 :]


def _dirname(a: Args, _c: FunctionContext) -> str:
    path = want_str(a[0], 0)
    return posixpath.normpath(path[: path.rfind("/") + 1]) if path else "."


def _file(a: Args, ctx: FunctionContext) -> str:
    return _paths.read_text(want_str(a[0], 0), 0, ctx)


def _filebase64(a: Args, ctx: FunctionContext) -> str:
    return base64.b64encode(_paths.read_bytes(want_str(a[0], 0), 0, ctx)).decode("ascii")


def _fileexists(a: Args, ctx: FunctionContext) -> bool:
    path = want_str(a[0], 0)
    full = _paths.resolve(path, 0, ctx)
    try:
        if not full.exists():
            return False
    except OSError as exc:  # a name too long for the file system, say: Terraform's stat fails too
        raise ArgError(0, f'failed to stat "{path}": {exc.strerror or exc}') from None
    if not full.is_file():
        raise ArgError(0, f'"{path}" exists but is not a regular file')
    return True


def _close(pattern: str, start: int, opener: str, closer: str) -> int:
    """Index of the ``closer`` matching the ``opener`` at ``start`` (nesting-aware), or -1."""
    depth = 0
    i = start
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _split_alternatives(body: str) -> list[str]:
    parts, depth, cur, i = [], 0, [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            cur.append(body[i : i + 2])
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


def _glob_to_regex(pattern: str) -> str:
    """Translate fileset's glob syntax (``*``, ``**``, ``?``, ``[…]``, ``{a,b}``) to a regex."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/"):
                end = i + 2
                if end == n:
                    out.append(".*")
                    i = end
                    continue
                if pattern[end] == "/":
                    out.append("(?:.*/)?")
                    i = end + 1
                    continue
            while i < n and pattern[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                raise ValueError("unterminated character class")
            body = pattern[i + 1 : end]
            negate = body[:1] in ("^", "!")
            body = body[1:] if negate else body
            out.append(("[^/" if negate else "[") + body.replace("\\", "\\\\") + "]")
            i = end + 1
            continue
        elif c == "{":
            end = _close(pattern, i, "{", "}")
            if end < 0:
                raise ValueError("unterminated alternatives")
            alts = _split_alternatives(pattern[i + 1 : end])
            out.append("(?:" + "|".join(_glob_to_regex(alt) for alt in alts) + ")")
            i = end + 1
            continue
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@lru_cache(maxsize=256)
def _compile_glob(pattern: str) -> re.Pattern[str]:
    return re.compile(_glob_to_regex(pattern))


def _fileset(a: Args, ctx: FunctionContext) -> list[Any]:
    path, pattern = want_str(a[0], 0), want_str(a[1], 1)
    root = _paths.resolve(path, 0, ctx)
    try:
        matcher = _compile_glob(pattern)
    except (ValueError, re.error) as exc:
        raise ArgError(1, f"invalid glob pattern: {exc}") from exc
    parts = pattern.split("/")
    literal: list[str] = []
    for part in parts[:-1]:
        if _GLOB_CHARS & set(part):
            break
        literal.append(part)
    start = root.joinpath(*literal)
    if ".." in literal:  # ``fileset(".", "../*.txt")`` lists "../a.txt", as Terraform's does
        _paths.resolve(str(start), 1, ctx)  # unless it leaves the sandbox
    found: list[str] = []
    if os.path.isdir(start):  # False for a path the file system refuses (too long), as a glob finds nothing there
        for dirpath, _dirs, files in os.walk(start):
            for name in files:
                rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                if matcher.fullmatch(rel) and os.path.isfile(os.path.join(dirpath, name)):
                    found.append(rel)
    return make_set(found, 0)


def _templatefile(a: Args, ctx: FunctionContext) -> object:
    if ctx.render_template is None:
        raise CallError("templatefile is not available here")
    path = want_str(a[0], 0)
    variables = want_map(a[1], 1)
    for key in variables:
        if not _TEMPLATE_VAR.fullmatch(key):
            raise ArgError(
                1,
                f'invalid template variable name "{key}": must start with a letter, followed by '
                "letters, digits or underscores",
            )
    text = _paths.read_text(path, 0, ctx)
    full = _paths.resolve(path, 0, ctx)
    filename = os.path.relpath(full, os.path.realpath(ctx.base_dir)).replace(os.sep, "/")
    return ctx.render_template(text, filename, dict(variables))


FUNCTIONS = {
    "abspath": fn(_abspath, "path"),
    "pathexpand": fn(_pathexpand, "path"),
    "basename": fn(_basename, "path"),
    "dirname": fn(_dirname, "path"),
    "file": fn(_file, "path"),
    "filebase64": fn(_filebase64, "path"),
    "fileexists": fn(_fileexists, "path"),
    "fileset": fn(_fileset, "path", "pattern"),
    "templatefile": fn(_templatefile, "path", "vars"),
}
