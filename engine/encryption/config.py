"""The ``encryption`` block: key providers, methods and the ``state``/``plan`` targets.

The block follows OpenTofu's model, so a configuration moving from OpenTofu reads the same::

    terraform {
      encryption {
        key_provider "pbkdf2" "main" { passphrase = "a passphrase of 16+ characters" }
        method "aes_gcm" "main"      { keys = key_provider.pbkdf2.main }
        method "unencrypted" "old"   {}
        state {
          method   = method.aes_gcm.main
          fallback { method = method.unencrypted.old }   # reads what was written before
          enforced = true                                # never write plaintext
        }
        plan { method = method.aes_gcm.main }
      }
    }

``CTL_ENCRYPTION`` (or OpenTofu's ``TF_ENCRYPTION``) may hold the block's contents in HCL, so CI can
keep the passphrase out of the repository; its blocks replace the configuration's blocks of the same
type and names. Settings are constants or input variables (``passphrase = var.passphrase``), as in
OpenTofu: the keys are needed before anything else is evaluated, so a variable's value comes from
where a run finds it without the configuration (``TF_VAR_``/``CTL_VAR_``, ``.tfvars`` files,
``--var`` where the command takes it, the default), never from a prompt.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.config.model import Module
from engine.config.variables import RawValue, collect_values, finalize
from engine.encryption.errors import EncryptionError
from engine.encryption.program import command_of
from engine.lang import ast
from engine.lang.eval import EvalContext, evaluate
from engine.lang.references import references
from engine.lang.syntax import Block, Body
from vocab.errors import CtlError
from vocab.values import unmark

ENV_VARS = ("CTL_ENCRYPTION", "TF_ENCRYPTION")
KEY_PROVIDERS = ("pbkdf2", "aws_kms", "external")
UNSUPPORTED = ("gcp_kms", "azure_vault", "openbao")  # OpenTofu's, not ctl's
CHAINED = ("pbkdf2",)  # the key providers that take ``chain`` (another key provider's key) in OpenTofu
METHODS = ("aes_gcm", "external", "unencrypted")
TARGETS = ("state", "plan")


@dataclass(frozen=True)
class KeyProviderConfig:
    kind: str  # "pbkdf2" | "aws_kms" | "external"
    name: str
    settings: dict[str, Any] = field(repr=False)  # constants; the passphrase among them
    chain: KeyProviderConfig | None = None  # ``chain = key_provider.T.N``: whose key is this one's passphrase

    @property
    def ref(self) -> str:
        return f"{self.kind}.{self.name}"


@dataclass(frozen=True)
class MethodConfig:
    kind: str  # "aes_gcm" | "external" | "unencrypted"
    name: str
    keys: KeyProviderConfig | None  # None for "unencrypted", optional for "external"
    encrypt_command: tuple[str, ...] = ()  # "external": the programs that encrypt and decrypt
    decrypt_command: tuple[str, ...] = ()

    @property
    def ref(self) -> str:
        return f"{self.kind}.{self.name}"


@dataclass(frozen=True)
class TargetConfig:
    """What a target (``state`` or ``plan``) is written with, and what else may be read."""

    method: MethodConfig
    fallback: MethodConfig | None = None
    enforced: bool = False


@dataclass(frozen=True)
class EncryptionConfig:
    state: TargetConfig | None = None
    plan: TargetConfig | None = None


def encryption_config(root: Module | None, environ: Mapping[str, str] | None = None,
                      var_args: list[tuple[str, str]] | None = None) -> EncryptionConfig | None:
    """The configuration's encryption settings merged with the environment's, or None when neither has any.

    ``var_args`` are the command's ``--var``/``--var-file`` arguments, for settings that name variables.
    """
    env = os.environ if environ is None else environ
    blocks: dict[tuple[str, ...], Block] = {}
    body = getattr(root, "encryption", None) if root is not None else None
    if body is not None:
        blocks.update(_keyed(body.blocks))
    for name in ENV_VARS:
        text = env.get(name, "").strip()
        if text:
            blocks.update(_keyed(_parse_env(text, name).blocks))
            break
    if not blocks:
        return None
    return _build(list(blocks.values()), _Inputs(root, env, var_args or []))


class _Inputs:
    """The root module's input variables, resolved only when a setting names one."""

    def __init__(self, root: Module | None, environ: Mapping[str, str], var_args: list[tuple[str, str]]) -> None:
        self.root, self.environ, self.var_args = root, environ, var_args
        self._given: dict[str, RawValue] | None = None

    def values(self, expr: ast.Expr) -> dict[str, Any]:
        """The values of the variables ``expr`` names (unmarked: a passphrase is sensitive by nature)."""
        names = {r.parts[0] for r in references(expr) if r.root == "var" and r.parts and isinstance(r.parts[0], str)}
        if not names:
            return {}
        declared = self.root.variables if self.root is not None else {}
        if self._given is None:
            self._given = collect_values(self.root.dir, self.var_args, self.environ) if self.root is not None else {}
        out: dict[str, Any] = {}
        for name in sorted(names):
            var = declared.get(name)
            if var is None:
                raise EncryptionError(f'The encryption block refers to var.{name}, which is not declared',
                                      range=expr.rng, hint=f'Declare it with: variable "{name}" {{ sensitive = true }}')
            raw = self._given.get(name)
            if raw is None and var.default is None:
                raise EncryptionError(
                    f"The encryption block needs a value for var.{name}, and none was given",
                    range=expr.rng,
                    hint=f"Set TF_VAR_{name} (or CTL_VAR_{name}), or put it in a .tfvars file: encryption keys "
                         "are needed before ctl would ask for it.")
            out[name] = unmark(finalize(var, raw))[0]
        return out


def _parse_env(text: str, name: str) -> Body:
    from engine.lang.hcl import parse_hcl_file

    try:
        return parse_hcl_file(text.encode(), f"${name}")
    except CtlError as err:
        raise EncryptionError(f"{name} is not a valid encryption block body: {err.summary}",
                              range=err.range) from None


def _keyed(blocks: Sequence[Block]) -> dict[tuple[str, ...], Block]:
    return {(b.type, *b.labels): b for b in blocks}


def _build(blocks: list[Block], inputs: _Inputs) -> EncryptionConfig:
    declared: dict[str, Block] = {}
    for b in (b for b in blocks if b.type == "key_provider"):
        kind, name = _labels(b, 2)
        if kind in UNSUPPORTED:
            raise EncryptionError(f'ctl does not support OpenTofu\'s key provider "{kind}"', range=b.rng,
                                  hint="An external key provider (a program that asks the service for the key) "
                                       "works in both tools; see docs/encryption.md.")
        if kind not in KEY_PROVIDERS:
            raise EncryptionError(f'Unknown key provider "{kind}"', range=b.rng,
                                  hint=f"Key providers: {', '.join(KEY_PROVIDERS)}.")
        declared[f"{kind}.{name}"] = b
    providers: dict[str, KeyProviderConfig] = {}
    for ref in declared:
        _provider(ref, declared, providers, [], inputs)
    methods: dict[str, MethodConfig] = {}
    for b in (b for b in blocks if b.type == "method"):
        kind, name = _labels(b, 2)
        if kind not in METHODS:
            raise EncryptionError(f'Unknown encryption method "{kind}"', range=b.rng,
                                  hint=f"Methods: {', '.join(METHODS)}.")
        keys = None
        aad = b.body.attr("aad")
        if kind == "aes_gcm" and aad is not None:
            raise EncryptionError(f'method "aes_gcm" "{name}": ctl does not support aad (additional '
                                  "authenticated data)", range=aad.expr.rng,
                                  hint="Remove it; data encrypted with it must be decrypted by the tool that wrote it.")
        attr = b.body.attr("keys")
        if kind == "aes_gcm" and attr is None:
            raise EncryptionError(f'method "aes_gcm" "{name}" needs keys = key_provider.TYPE.NAME',
                                  range=b.rng)
        if kind != "unencrypted" and attr is not None:
            keys = providers.get(_reference(attr.expr, "key_provider"))
            if keys is None:
                raise EncryptionError(f"{_reference(attr.expr, 'key_provider')} is not a key provider "
                                      "defined in the encryption block", range=attr.expr.rng)
        commands: list[tuple[str, ...]] = []
        if kind == "external":  # OpenTofu's: programs that encrypt and decrypt, given the payload and a key
            for setting in ("encrypt_command", "decrypt_command"):
                given = b.body.attr(setting)
                value = _constant(given.expr, inputs) if given is not None else None
                try:
                    commands.append(tuple(command_of(value, f'method "external" "{name}"', setting)))
                except EncryptionError as err:
                    err.range = given.expr.rng if given is not None else b.rng
                    raise
        methods[f"{kind}.{name}"] = MethodConfig(kind, name, keys, *commands)
    targets = {t: _target(b, methods, inputs) for b in blocks for t in TARGETS if b.type == t}
    unknown = [b for b in blocks if b.type not in ("key_provider", "method", *TARGETS)]
    if unknown:
        raise EncryptionError(f'Unsupported block "{unknown[0].type}" in encryption', range=unknown[0].rng,
                              hint="Blocks: key_provider, method, state, plan.")
    return EncryptionConfig(state=targets.get("state"), plan=targets.get("plan"))


def _provider(ref: str, declared: dict[str, Block], done: dict[str, KeyProviderConfig], stack: list[str],
              inputs: _Inputs) -> KeyProviderConfig:
    """The key provider ``ref`` with the one it is chained from, resolved first (in any order of
    declaration, as OpenTofu allows); a chain that comes back to itself is an error naming it."""
    found = done.get(ref)
    if found is not None:
        return found
    block = declared[ref]
    if ref in stack:
        cycle = " -> ".join(f"key_provider.{r}" for r in [*stack[stack.index(ref):], ref])
        raise EncryptionError(f"key_provider.{ref} is chained from itself: {cycle}", range=block.rng,
                              hint="A chain must end at a key provider with a passphrase or a key of its own.")
    kind, name = block.labels
    chain = None
    attr = block.body.attr("chain")
    if attr is not None:
        if kind not in CHAINED:
            raise EncryptionError(f'key_provider "{kind}" "{name}" takes no chain', range=attr.expr.rng,
                                  hint=f"Only {', '.join(CHAINED)} key providers take their passphrase from "
                                       "another key provider.")
        upstream = _reference(attr.expr, "key_provider")
        if upstream not in declared:
            raise EncryptionError(f"key_provider.{upstream} is not a key provider defined in the encryption "
                                  "block", range=attr.expr.rng)
        chain = _provider(upstream, declared, done, [*stack, ref], inputs)
    settings = {n: _constant(a.expr, inputs) for n, a in block.body.attributes.items() if n != "chain"}
    done[ref] = KeyProviderConfig(kind, name, settings, chain)
    return done[ref]


def _target(block: Block, methods: dict[str, MethodConfig], inputs: _Inputs) -> TargetConfig:
    method = _method(block.body, methods, block)
    fallback = None
    for fb in block.body.blocks_of("fallback"):
        fallback = _method(fb.body, methods, fb)
    enforced_attr = block.body.attr("enforced")
    enforced = bool(_constant(enforced_attr.expr, inputs)) if enforced_attr is not None else False
    if enforced and method.kind == "unencrypted":
        raise EncryptionError(f"the {block.type} target is enforced but its method is unencrypted",
                              range=block.rng, hint="Use an aes_gcm method, or drop enforced = true.")
    return TargetConfig(method, fallback, enforced)


def _method(body: Body, methods: dict[str, MethodConfig], block: Block) -> MethodConfig:
    attr = body.attr("method")
    if attr is None:
        raise EncryptionError(f'"{block.type}" needs method = method.TYPE.NAME', range=block.rng)
    found = methods.get(_reference(attr.expr, "method"))
    if found is None:
        raise EncryptionError(f"{_reference(attr.expr, 'method')} is not a method defined in the encryption "
                              "block", range=attr.expr.rng)
    return found


def _reference(expr: ast.Expr, root: str) -> str:
    """``key_provider.pbkdf2.main`` → ``pbkdf2.main``; anything else is an error at the expression."""
    if isinstance(expr, ast.ScopeTraversal) and expr.root == root and len(expr.steps) == 2 and all(
            isinstance(s, ast.AttrStep) for s in expr.steps):
        return ".".join(s.name for s in expr.steps if isinstance(s, ast.AttrStep))
    raise EncryptionError(f"expected a reference of the form {root}.TYPE.NAME", range=expr.rng)


def _labels(block: Block, n: int) -> list[str]:
    if len(block.labels) != n:
        raise EncryptionError(f'A "{block.type}" block needs {n} labels (type and name)', range=block.rng)
    return block.labels


def _constant(expr: ast.Expr, inputs: _Inputs) -> Any:
    scope = EvalContext(variables={"var": inputs.values(expr)})
    try:
        value, _ = unmark(evaluate(expr, scope))
    except CtlError:
        raise EncryptionError("Encryption settings must be constants or input variables", range=expr.rng,
                              detail="Keys are needed before resources, locals and data sources exist; put "
                                     "secrets in a variable or in CTL_ENCRYPTION instead of the configuration.") from None
    return value
