"""What the fuzz tests feed damaged input to, and what each may do with it.

Every target takes one input and must either succeed or raise ctl's own error type (``CtlError``,
which the CLI prints as one positioned line and an exit code), within ``TIME_BOUND_S``. Anything
else (a ``TypeError``, a ``RecursionError``, a hang) is a bug: it would print a traceback or never
return. Syntax errors must also say where they are.
"""

from __future__ import annotations

import contextlib
import json
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from backends.local.store import LocalStore
from engine.lang.eval import EvalContext, evaluate
from engine.lang.functions import FunctionContext
from engine.lang.hcl import parse_expression, parse_hcl_file
from engine.state.codec import decode_state
from engine.state.encode import encode_state
from engine.state.journal import parse_entries, replay
from engine.state.model import new_state
from engine.validate import validate
from vocab.errors import CtlError, DiagnosticsError

TIME_BOUND_S = 10.0  # the bar: no input takes longer


class TookTooLong(BaseException):
    """An input ran past ``TIME_BOUND_S``."""


@contextlib.contextmanager
def bounded(seconds: float = TIME_BOUND_S) -> Iterator[None]:
    """Raise ``TookTooLong`` in this (the main) thread if the body runs longer than ``seconds``."""
    def expire(signum: int, frame: Any) -> None:
        raise TookTooLong(f"over {seconds:g}s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def positioned(err: CtlError) -> None:
    """A syntax or evaluation error names its file, line and column."""
    if isinstance(err, DiagnosticsError):
        for d in err.diagnostics():
            assert d.range is not None and d.range.start.line >= 1 and d.range.start.column >= 1, d


def hcl_file(data: bytes) -> None:
    with bounded():
        try:
            parse_hcl_file(data, "main.tf")
        except CtlError as err:
            positioned(err)


def configuration(name: str, data: bytes) -> None:
    """A whole configuration directory holding one damaged file, validated as ``ctl validate`` does."""
    with tempfile.TemporaryDirectory() as tmp, bounded():
        (Path(tmp) / name).write_bytes(data)
        try:
            loaded = validate(Path(tmp), environ={})
        except CtlError:
            return
        for d in loaded.diags.items:
            assert d.summary, d


_HERE = Path(tempfile.gettempdir())
EXPRESSION_SCOPE = {
    "var": {"names": ["a", "b", "c"], "n": 3, "m": {"k": "v", "x": [1, 2]}, "s": "text", "none": None},
    "local": {"objs": [{"name": "x", "port": 80}, {"name": "y", "port": 443}]},
}


def expression(text: str) -> None:
    with bounded():
        try:
            expr = parse_expression(text, "expr.tf")
            value = evaluate(expr, EvalContext(variables=json.loads(json.dumps(EXPRESSION_SCOPE)),
                                               func_ctx=FunctionContext(base_dir=_HERE, module_dir=_HERE)))
        except CtlError as err:
            positioned(err)
            return
        json.dumps(value, default=str)  # whatever it is, it can be shown


def state_file(data: bytes) -> None:
    """A damaged state either loads, and then writes back to something that loads the same, or is refused."""
    with bounded():
        try:
            state = decode_state(data, "ctl.tfstate")
        except CtlError:
            return
        again = decode_state(encode_state(state), "ctl.tfstate")
        assert sorted(str(a) for a, _ in again.instances()) == sorted(str(a) for a, _ in state.instances())


def journal(data: bytes) -> None:
    with bounded():
        entries = parse_entries(data.split(b"\n"))
        try:
            state, _ = replay(new_state(), entries)
        except CtlError:
            return
        decode_state(encode_state(state), "ctl.tfstate")  # what a replay built can be saved and read


def lock_file(data: bytes) -> None:
    """Whatever a lock file holds, asking who holds the lock answers or refuses, never crashes."""
    with tempfile.TemporaryDirectory() as tmp, bounded():
        store = LocalStore(Path(tmp) / "ctl.tfstate")
        store._sibling("default", ".tflock").write_bytes(data)
        with contextlib.suppress(CtlError):
            store.lock_info("default")


# --- what comes from the network and from providers --------------------------------------------

REGISTRY_DOCUMENTS = ("versions.json", "download.json", "discovery.json", "mirror_index.json",
                      "mirror_version.json")
_PROVIDER = "registry.terraform.io/hashicorp/random"
_OS_ARCH = "linux_amd64"


def _registry_json(data: bytes) -> Any:
    """The document as ``get_json`` reads an answer; what it refuses never reaches the parsers."""
    from engine.install.fetch import FetchError
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        raise FetchError("not JSON") from None


def registry_document(name: str, data: bytes) -> None:
    """A damaged registry or network-mirror answer, read by the installer's own sources (no network):
    the answer to each of their questions is the damaged document."""
    from engine.install.network_mirror import NetworkMirror
    from engine.install.registry_source import RegistrySource
    from vocab.providers import ProviderSource
    from vocab.versions import Version

    provider = ProviderSource.parse(_PROVIDER)
    version = Version.parse("3.6.0")

    class Answering(RegistrySource):
        def _get(self, url: str, hostname: str) -> Any:
            return _registry_json(data)

    with bounded():
        try:
            doc = _registry_json(data)
        except CtlError:
            return
        try:
            if name.startswith("mirror_"):
                mirror = NetworkMirror("https://mirror.example.com/providers")
                prefix = mirror._prefix(provider)
                mirror._docs[prefix + "index.json"] = doc
                mirror._docs[f"{prefix}{version}.json"] = doc
                mirror.versions(provider, _OS_ARCH)
                package = mirror.package(provider, version, _OS_ARCH)
            elif name == "discovery.json":
                Answering().base(provider.hostname)
                return
            else:
                source = Answering(_bases={provider.hostname: "https://registry.example.com/v1/providers/"})
                source.versions(provider, _OS_ARCH)
                package = source.package(provider, version, _OS_ARCH)
        except CtlError:
            return
        if package is not None:  # what was accepted is text the installer can use as it is
            assert isinstance(package.location, str) and package.location, package
            assert all(isinstance(k, str) for k in package.signing_keys + package.mirror_hashes), package


def provider_zip(data: bytes) -> None:
    """A damaged provider release zip, checked and unpacked into a fresh directory: it is refused or
    unpacked entirely inside that directory, and nothing appears beside it."""
    from engine.install.archive import checked_members, opened
    from engine.install.unpack import unpack

    with tempfile.TemporaryDirectory() as tmp, bounded():
        root = Path(tmp)
        archive = root / "terraform-provider-random_3.6.0_linux_amd64.zip"
        archive.write_bytes(data)
        target = root / "unpacked"
        try:
            with opened(archive) as zipped:
                checked_members(zipped, archive)
            unpack(archive, target)
        except CtlError:
            pass
        outside = sorted(p.name for p in root.iterdir() if p not in (archive, target))
        assert not outside, f"written outside the target directory: {outside}"
        if target.exists():
            for path in target.rglob("*"):
                assert not path.is_symlink(), path
                assert path.resolve().is_relative_to(target.resolve()), path


def _schemas() -> dict[str, Any]:
    """A few value types a provider's answers are read against."""
    from vocab.types import (
        BOOL,
        DYNAMIC,
        NUMBER,
        STRING,
        ObjectType,
        TupleType,
        list_of,
        map_of,
        set_of,
    )
    return {
        "object": ObjectType({"id": STRING, "count": NUMBER, "enabled": BOOL, "tags": map_of(STRING),
                              "ports": list_of(NUMBER), "names": set_of(STRING), "extra": DYNAMIC,
                              "pair": TupleType((STRING, NUMBER)),
                              "rules": list_of(ObjectType({"cidr": STRING, "port": NUMBER}))}),
        "dynamic": DYNAMIC,
        "set": set_of(ObjectType({"k": STRING, "v": list_of(NUMBER)})),
    }


RESPONSE_KINDS = (*(f"{encoding}-{schema}" for encoding in ("msgpack", "json") for schema in ("object", "dynamic", "set")),
                  "schema.pb5", "schema.pb6")


def provider_response(name: str, data: bytes) -> None:
    """A damaged value or ``GetProviderSchema`` answer from a provider, read as ctl reads one: it
    decodes or is a ``CtlError`` (a ``PluginValueError`` for values), never another exception."""
    from adapters.plugin.dynamic_value import decode_dynamic_value
    from adapters.plugin.results import DynamicValue

    with bounded():
        if name.startswith("schema.pb"):
            _schema_response(name, data)
            return
        encoding, _, schema = name.partition("-")
        ty = _schemas()[schema]
        types: dict[Any, Any] = {}
        try:
            if encoding == "msgpack":
                value = decode_dynamic_value(DynamicValue(msgpack=data), ty, dynamic_types=types)
            else:
                value = decode_dynamic_value(DynamicValue(json=data), ty, dynamic_types=types)
        except CtlError:
            return
        json.dumps(value, default=str)  # whatever it is, it can be shown


def _schema_response(name: str, data: bytes) -> None:
    """Parsing the protocol buffer is gRPC's part; what ctl makes of a parsed answer is checked."""
    from google.protobuf.message import DecodeError

    from adapters.plugin import proto_schema
    from adapters.plugin.proto import tfplugin5_pb2, tfplugin6_pb2
    from adapters.plugin.schema_json import schema_from_json
    from vocab.schema.form import implied_type

    module = tfplugin5_pb2 if name.endswith("5") else tfplugin6_pb2
    try:
        response = module.GetProviderSchema.Response.FromString(data)
    except (DecodeError, RecursionError):
        return
    try:
        parsed = proto_schema.provider_schema(response)
        for doc in [parsed.provider, *parsed.resource_schemas.values(), *parsed.data_source_schemas.values()]:
            implied_type(schema_from_json(doc).block)
    except CtlError:
        return
