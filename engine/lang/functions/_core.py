"""The pieces every function family shares: the public error and context types, and the spec record.

Function bodies never build user-facing messages about *which* function or parameter failed: they
raise the small internal ``ArgError`` (a bad argument, by index) or ``CallError`` (the call as a whole
failed), and ``registry.call_function`` turns those into one ``FunctionError`` worded the same way
for every function. That keeps the ~120 function bodies short and the messages consistent.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Unpack

from vocab.errors import CtlError, ErrorFields
from vocab.types import CtyType
from vocab.values import ListValue

# A call's evaluated arguments. Language values are dynamically typed (vocab.values), so each is an
# ``object`` to the checker: a function body narrows what it reads (isinstance, or the ``want_*``
# helpers of ``_args``, which also convert as Terraform does).
Args = list[object]


class FunctionError(CtlError):
    """A function call a user wrote failed; ``arg_index`` (0-based) says which argument was bad, if any.

    ``heading`` is the diagnostic's summary where it is not the one a bad argument or a failed call
    gets ("Not enough function arguments"): HCL words those apart, and so does the evaluator.
    """

    def __init__(self, summary: str, *, arg_index: int | None = None, heading: str | None = None,
                 **kw: Unpack[ErrorFields]) -> None:
        super().__init__(summary, **kw)
        self.arg_index = arg_index
        self.heading = heading


@dataclass
class FunctionContext:
    """What a function may know about the world outside its arguments.

    File functions resolve relative paths against ``base_dir`` (the working directory of the run,
    as Terraform resolves them against the current directory) and read whatever the process can
    read, as Terraform does; ``file_root``, when set (``CTL_FILE_ROOT``), is a sandbox for
    configurations that are not trusted: nothing outside it is read.
    """

    base_dir: Path
    module_dir: Path
    file_root: Path | None = field(default_factory=lambda: file_root_from(os.environ))
    plan_mode: bool = False
    plan_timestamp: str = ""
    render_template: Callable[[str, str, dict[str, Any]], object] | None = field(default=None, repr=False)
    # ``provider::NAME::FUNC`` -> the provider's function (engine/plugins/functions.py), or None.
    provider_function: Callable[[str], Callable[[Args], object] | None] | None = field(default=None, repr=False)


FILE_ROOT_VARIABLE = "CTL_FILE_ROOT"


def file_root_from(environ: Mapping[str, str]) -> Path | None:
    """The sandbox ``CTL_FILE_ROOT`` names (relative to the working directory), or None: no sandbox."""
    text = environ.get(FILE_ROOT_VARIABLE, "").strip()
    return Path(os.path.realpath(text)) if text else None


class ArgError(Exception):
    """Internal: argument ``index`` (0-based) is unacceptable for the reason in ``message``."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


class CallError(Exception):
    """Internal: the call failed for a reason not tied to one argument."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


Impl = Callable[[Args, FunctionContext], object]


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    """One function: its body, parameter names (for messages) and how it treats unknown/marked values.

    ``unknown_ok`` functions receive arguments that may contain ``Unknown`` and decide themselves
    (``length`` of a list of unknowns is known). ``raw`` functions also receive marked arguments
    untouched, because their whole job is marks (``sensitive``, ``nonsensitive``). ``element_marks``
    functions move elements around without looking into them (``keys``, ``lookup``, ``concat``): only
    the marks on an argument as a whole go onto the result, and a sensitive element stays a
    sensitive element, as with Terraform, so ``keys({a = sensitive(x)})`` is not itself a secret.
    ``typed_nulls`` functions receive nulls of a type as they are (``vocab.values.Null``), because a
    result's type depends on them (``tonumber(tostring(null))``, ``type()``, ``concat``); every other
    function sees a null as ``None``.
    """

    name: str
    impl: Impl
    params: tuple[str, ...]
    variadic: str | None
    min_args: int
    max_args: int | None
    unknown_ok: bool = False
    raw: bool = False
    element_marks: bool = False
    typed_nulls: bool = False

    def param_name(self, index: int) -> str:
        if index < len(self.params):
            return self.params[index]
        return self.variadic or f"arg{index + 1}"


def fn(
    impl: Impl,
    *params: str,
    optional: tuple[str, ...] = (),
    variadic: str | None = None,
    unknown_ok: bool = False,
    raw: bool = False,
    element_marks: bool = False,
    typed_nulls: bool = False,
) -> Callable[[str], FunctionSpec]:
    """Declare a function compactly; the registry supplies the name when it collects the tables.

    A variadic parameter may be given no value, as in cty: a function that needs some says so
    itself, as a failed call ("must pass at least one number")."""
    min_args = len(params)
    max_args = None if variadic else len(params) + len(optional)

    def build(name: str) -> FunctionSpec:
        return FunctionSpec(
            name=name,
            impl=impl,
            params=params + optional,
            variadic=variadic,
            min_args=min_args,
            max_args=max_args,
            unknown_ok=unknown_ok,
            raw=raw,
            element_marks=element_marks,
            typed_nulls=typed_nulls,
        )

    return build


def returns_list(impl: Impl, element: CtyType | None = None) -> Impl:
    """``impl``, its list result typed ``list(element)`` as Terraform types it, not a tuple.

    ``split``, ``sort``, ``range`` and the like return lists in Terraform, and equality and
    ``type()`` tell a list from a tuple: ``split(",", "a") == tolist(["a"])`` holds and
    ``split(",", "a") == ["a"]`` does not. ``element`` is the element type when the result is empty.
    """

    def typed(args: list[Any], ctx: FunctionContext) -> object:
        result = impl(args, ctx)
        return ListValue(result, element) if type(result) is list else result

    return typed
