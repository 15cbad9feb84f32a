"""Comparing values attribute by attribute, the way a plan needs to.

Secrets compare by their real value (a mark alone is no change), and an unknown planned value
always counts as a change: it will only be known once the operation has run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.schema import argument_names, read_only
from vocab.redact import redacted_exception, secret_texts
from vocab.values import (
    SENSITIVE,
    Marked,
    Unknown,
    apply_paths,
    deep_unmark,
    is_marked,
    mark,
    unmark_paths,
)


def plain(value: Any) -> Any:
    """``value`` without sensitivity marks (``None`` stays ``None``): what adapters are given."""
    return None if value is None else deep_unmark(value)[0]


def keep_ignored_changes(planned: dict[str, Any], prior: dict[str, Any], ignore: Sequence[str] | str,
                         rt: Any) -> dict[str, Any]:
    """``lifecycle.ignore_changes``: the named arguments (or all, for ``all``) keep their prior values.

    Plan and apply both call this, so the object applied is the object planned.
    """
    out = dict(planned)
    names = list(argument_names(rt)) if ignore == "all" else [i.split(".")[0].split("[")[0] for i in ignore]
    for name in names:
        # An argument, also one the provider may compute when unset (Optional+Computed, as tags or a
        # queue's redrive policy often are), keeps its prior value; a computed-only attribute is no
        # argument, and the provider's value stands.
        if name in prior and not (name in rt.computed and read_only(rt, name)):
            out[name] = prior[name]
    return out


_PLAIN_SCALARS = frozenset({str, int, float, type(None)})  # compared with ==; bool is kept apart below


def equal(a: Any, b: Any) -> bool:
    """Deep equality ignoring marks; anything unknown is never equal to something known.

    Every attribute of every instance goes through here twice in a re-plan (refresh, then the
    diff), so the common leaves, two scalars of one type, are compared without a call of their own.
    """
    if type(a) is dict and type(b) is dict:
        if a.keys() != b.keys():
            return False
        for k, x in a.items():
            y = b[k]
            t = type(x)
            if t is type(y) and t in _PLAIN_SCALARS:
                if x != y:
                    return False
            elif not equal(x, y):
                return False
        return True
    return _equal(a, b)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, Marked):
        a = a.value
    if isinstance(b, Marked):
        b = b.value
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return False
        return all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):
            t = type(x)
            if t is type(y) and t in _PLAIN_SCALARS:
                if x != y:
                    return False
            elif not equal(x, y):
                return False
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def changed_attributes(prior: dict[str, Any], planned: dict[str, Any]) -> list[str]:
    """Top-level attribute names whose planned value differs from the prior one.

    ``prior`` is a stored object, so it holds no unknown value: an attribute that is the very
    same object on both sides (what a read or a plan passed through) is unchanged, uncompared.
    """
    keys = sorted(set(prior) | set(planned))
    return [k for k in keys if (p := prior.get(k)) is not (q := planned.get(k)) and not equal(p, q)]


def call_plain(fn: Any, *args: Any, marked: dict[str, Any]) -> dict[str, Any]:
    """Call an adapter with unmarked values and put the marks back on what it returns.

    Adapters never see ``Marked`` wrappers; the secrets in their results stay marked by path.
    """
    plain, paths = unmark_paths(marked)
    if plain is marked:
        plain = dict(marked)  # the adapter's own top level; values inside are shared, as they are read only
    if not paths:
        unmarked: dict[str, Any] = fn(*args, plain)
        return unmarked
    ctx: Any = args[0] if args else None
    if isinstance(getattr(ctx, "secrets", None), frozenset):  # warnings are redacted as errors are
        ctx.secrets = ctx.secrets | secret_texts(marked)
    try:
        result = fn(*args, plain)
    except Exception as exc:  # an adapter or SDK message may echo the arguments it was given
        safe = redacted_exception(exc, secret_texts(marked))
        if safe is exc:
            raise
        raise safe from None
    remarked: dict[str, Any] = apply_paths(result, paths)
    return remarked


def mark_sensitive(attrs: dict[str, Any], rt: Any) -> dict[str, Any]:
    """Mark what the adapter declares sensitive: always (``random_password.result``), or where the
    attribute it copies is (``terraform_data.output`` follows ``input``, path by path: with
    ``input = { password = var.secret, user = "x" }`` only ``output.password`` is secret, so
    ``output.user`` may be shown)."""
    names: frozenset[str] = rt.sensitive
    follows: dict[str, str] = getattr(rt, "sensitive_follows", {})
    if not names and not follows:
        return attrs
    out = attrs  # copied at the first attribute to mark: most objects have none
    for n in names:
        if n in out and out[n] is not None and not isinstance(out[n], Marked):
            out = out if out is not attrs else dict(attrs)
            out[n] = mark(out[n], frozenset({SENSITIVE}))
    for dest, src in follows.items():
        value, source = out.get(dest), out.get(src)
        if value is None or isinstance(value, Marked) or not is_marked(source):
            continue
        if isinstance(value, Unknown):  # known after apply: secret as a whole only if the source is
            if not isinstance(source, Marked):
                continue
            marked = mark(value, frozenset({SENSITIVE}))
        else:
            marked = apply_paths(deep_unmark(value)[0], unmark_paths(source)[1])
        out = out if out is not attrs else dict(attrs)
        out[dest] = marked
    return out


def stored_marks(attrs: dict[str, Any], rt: Any) -> dict[str, Any]:
    """``attrs`` with only the marks the state file records: those ``mark_sensitive`` copies along
    ``sensitive_follows`` are ctl's own and are taken off.

    Terraform and OpenTofu record no mark on ``terraform_data.output`` (only the ``input`` paths
    that came from a secret), and plan a sensitivity-only update on a state that has one; ctl puts
    the copied marks back every time it reads the object, so the secret stays masked in its output.
    """
    follows: dict[str, str] = getattr(rt, "sensitive_follows", {})
    if not follows or not any(is_marked(attrs.get(dest)) for dest in follows):
        return attrs
    out = dict(attrs)
    for dest in follows:
        if dest in out:
            out[dest] = deep_unmark(out[dest])[0]
    return out
