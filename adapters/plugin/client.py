"""``PluginClient``: one typed interface to a provider, whichever protocol version it speaks.

Every method is one RPC. Values go in as cty msgpack bytes and come out as ``DynamicValue``s, in
whichever encoding the provider chose (``None`` means null);
problems the provider reports come back as ``PluginDiagnostic`` lists, never as exceptions, because
the caller decides which of them stop a run and where in the configuration they point. Only a
transport failure (the provider crashed or was closed) raises ``PluginCallError``.

Thread safety: a gRPC channel and its callables are safe to share, so one client serves all of a
walk's worker threads concurrently; go-plugin serves each call on its own goroutine.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

import grpc
from google.protobuf.message import Message

from adapters.plugin import proto_schema
from adapters.plugin.diagnostics import PluginDiagnostic, diagnostics_from_proto, path_from_proto
from adapters.plugin.process import SHUTDOWN_GRACE, PluginProcess
from adapters.plugin.protocols import BINDINGS, ProtocolBinding
from adapters.plugin.results import (
    AppliedChange,
    DynamicValue,
    FunctionResult,
    ImportedResource,
    ImportResult,
    Metadata,
    PlannedChange,
    StateResult,
    ValidateProviderResult,
    Value,
)
from vocab.provider_errors import PluginCallError

MSGPACK_NULL = b"\xc0"
STOP_TIMEOUT = 5.0
# How long closing waits for the answers of calls still under way (see ``PluginClient.close``).
SETTLE_TIMEOUT = 120.0
EXIT_WAIT = 1.0  # seconds to wait for the exit of a provider whose connection broke mid-call
_BROKEN = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.INTERNAL,
                     grpc.StatusCode.UNKNOWN})
_log = logging.getLogger("ctl.plugin")
_DEFERRED_REASONS = {0: "unknown", 1: "resource_config_unknown", 2: "provider_config_unknown", 3: "absent_prereq"}


# Messages nested this deep are read, as Go's protobuf runtime (and so Terraform) reads them.
PROTO_RECURSION_LIMIT = 10_000


def allow_deep_messages() -> None:
    """Let responses nest past the Python protobuf runtime's default of 100 levels.

    A schema's nested blocks cost two message levels each (block, nested block), so a provider
    schema 50 blocks deep was refused as "Exception deserializing response" where Terraform reads
    it. The upb runtime raises its depth limit (to 65,535) only through its "oversize protos"
    switch; the pure-Python runtime takes a recursion limit. Either is set once for the process.
    """
    from google.protobuf.internal import api_implementation

    kind = api_implementation.Type()
    if kind == "upb":
        from google._upb import _message

        _message.SetAllowOversizeProtos(True)
    elif kind == "cpp":
        from google.protobuf.pyext import _message as cpp_message

        cpp_message.SetAllowOversizeProtos(True)
    elif kind == "python":
        from google.protobuf.internal import decoder

        decoder.SetRecursionLimit(PROTO_RECURSION_LIMIT)


allow_deep_messages()


def _dynamic(pb: ModuleType, value: Value | None) -> Message:
    return pb.DynamicValue(msgpack=MSGPACK_NULL if value is None else value)


def _value(message: Message, field: str) -> DynamicValue | None:
    """A DynamicValue field as the provider encoded it; None for null or absent (a destroyed or
    vanished object), mirroring how None goes in.

    msgpack wins when both are set and neither set reads as null, as Terraform reads them.
    """
    if not message.HasField(field):
        return None
    dynamic = getattr(message, field)
    data: bytes = dynamic.msgpack
    if data:
        return None if data == MSGPACK_NULL else DynamicValue(msgpack=data)
    text: bytes = dynamic.json
    return None if text.strip() in (b"", b"null") else DynamicValue(json=text)


def _deferred(response: Message) -> str | None:
    if "deferred" in response.DESCRIPTOR.fields_by_name and response.HasField("deferred"):
        return _DEFERRED_REASONS.get(response.deferred.reason, "unknown")
    return None


class PluginClient:
    """Calls into one started provider process; ``close`` stops it. Use as a context manager."""

    def __init__(self, process: PluginProcess) -> None:
        if process.channel is None:
            raise ValueError("the plugin process is not started")
        self.process = process
        self.protocol_version = process.protocol_version
        self._binding: ProtocolBinding = BINDINGS[self.protocol_version]
        self._pb = self._binding.pb
        self._callables: dict[str, tuple[Any, type[Message]]] = {}
        # Calls under way, so that closing waits for their answers: the provider is stopped only
        # once nothing is asked of it any more (see ``close``).
        self._in_flight = 0
        self._settled = threading.Condition()
        self._closing = False
        self._stopped = False  # asked to cancel its calls (StopProvider): they end soon, or never
        # Told of every call once it ends (operation, seconds, error kind or ""): the run's timing
        # recorder, when a trace or the timing report is wanted. None costs nothing.
        self.observe: Callable[[str, float, str], None] | None = None

    @classmethod
    def launch(cls, executable: str, *, name: str | None = None, **options: Any) -> PluginClient:
        """Start the binary and connect; the caller owns the result (close it)."""
        return cls(PluginProcess(executable, name=name, **options).start())

    def __enter__(self) -> PluginClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing ------------------------------------------------------------------------------

    def _request(self, operation: str, **fields: Any) -> Message:
        return self._callable(operation)[1](**fields)

    def _callable(self, operation: str) -> tuple[Any, type[Message]]:
        channel = self.process.channel
        if channel is None:
            raise self._closed_error(operation)
        found = self._callables.get(operation)
        if found is None:
            path, request_cls, response_cls = self._binding.rpc(operation)
            method = channel.unary_unary(
                path,
                request_serializer=request_cls.SerializeToString,
                response_deserializer=response_cls.FromString,
            )
            found = self._callables[operation] = (method, request_cls)
        return found

    def _call(self, operation: str, request: Message, timeout: float | None = None) -> Any:
        """The operation's Response message, of the protocol version this provider speaks.

        Typed ``Any``: which class it is depends on the operation named at run time, and the
        methods below read it by field names that both protocol versions share.
        """
        observe = self.observe
        if observe is None:
            return self._send(operation, request, timeout)
        started = time.perf_counter()
        error = ""
        try:
            return self._send(operation, request, timeout)
        except BaseException as exc:
            error = type(exc).__name__  # its kind only: a provider's message may quote a value
            raise
        finally:
            observe(operation, time.perf_counter() - started, error)

    def _send(self, operation: str, request: Message, timeout: float | None) -> Any:
        method, _ = self._callable(operation)
        with self._under_way(operation):
            try:
                return method(request, timeout=timeout)
            except grpc.RpcError as exc:
                raise self._transport_error(operation, exc) from None
            except ValueError as exc:  # grpc refuses to start a call on a channel closed under it
                if "closed channel" not in str(exc):
                    raise
                raise self._closed_error(operation) from None

    @contextlib.contextmanager
    def _under_way(self, operation: str) -> Iterator[None]:
        """Count one call in flight. Once closing has begun a new call is refused (only StopProvider,
        which cancels what is under way, still goes out): the provider is about to be stopped."""
        with self._settled:
            if self._closing and operation != "StopProvider":
                raise self._closed_error(operation)
            self._in_flight += 1
        try:
            yield
        finally:
            with self._settled:
                self._in_flight -= 1
                self._settled.notify_all()

    def _closed_error(self, operation: str) -> PluginCallError:
        return PluginCallError(
            f"Provider {self.process.name}: {operation}: it was already closed",
            hint="Start the provider again; a closed client cannot be reused.",
        )

    def _transport_error(self, operation: str, exc: grpc.RpcError) -> PluginCallError:
        code = exc.code() if hasattr(exc, "code") else None
        status = self.process.exit_status
        if status is None and code in _BROKEN and self.process.pid is not None:
            # A stream cut by a dying process reaches us before its exit does: give it a moment, so the
            # error says that it crashed and shows its last words (a panic's message).
            status = self.process.wait_exit(EXIT_WAIT)
            if status is not None:
                self.process._wait_for_tail()
        what = f"it exited (status {status})" if status is not None else f"the call failed ({exc.details()})"
        tail = self.process.stderr_tail()
        panic = next((i for i, line in enumerate(tail) if line.startswith(("panic:", "fatal error:"))), None)
        shown = tail[panic:panic + 12] if panic is not None else tail[-10:]  # a panic's message, not its last frames
        detail = "Its last output:\n  " + "\n  ".join(shown) if tail else ""
        hint = (
            "The provider crashed: this is a bug in the provider; its output above says where."
            if status is not None
            else "Run again with ctl's debug logging to see the provider's own log."
        )
        return PluginCallError(f"Provider {self.process.name}: {operation}: {what}", detail=detail, hint=hint)

    # -- provider-level calls ------------------------------------------------------------------

    def get_metadata(self) -> Metadata | None:
        """Names of what the provider offers, cheaply; None from providers without GetMetadata."""
        try:
            method, request_cls = self._callable("GetMetadata")
            response = method(request_cls())
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.UNIMPLEMENTED:
                return None
            raise self._transport_error("GetMetadata", exc) from None
        return Metadata(
            server_capabilities=proto_schema.capabilities(response.server_capabilities),
            resources=[r.type_name for r in response.resources],
            data_sources=[d.type_name for d in response.data_sources],
            functions=[f.name for f in response.functions],
            ephemeral_resources=[e.type_name for e in response.ephemeral_resources],
            diagnostics=diagnostics_from_proto(response.diagnostics),
        )

    def get_provider_schema(self) -> proto_schema.ProviderSchema:
        response = self._call("GetProviderSchema", self._request("GetProviderSchema"))
        return proto_schema.provider_schema(response)

    def validate_provider_config(self, config: Value) -> ValidateProviderResult:
        response = self._call(
            "ValidateProviderConfig", self._request("ValidateProviderConfig", config=_dynamic(self._pb, config))
        )
        prepared = _value(response, "prepared_config") if self.protocol_version == 5 else None
        return ValidateProviderResult(diagnostics_from_proto(response.diagnostics), prepared)

    def configure_provider(self, config: Value, terraform_version: str = "1.5.0") -> list[PluginDiagnostic]:
        """Configure with the provider's config value; returns diagnostics.

        ``terraform_version`` is what providers see as the calling Terraform's version (some gate
        features on it): the Terraform version whose behaviour ctl follows, which the engine
        passes; the default is the one its state files declare.
        """
        request = self._request(
            "ConfigureProvider", terraform_version=terraform_version, config=_dynamic(self._pb, config)
        )
        return diagnostics_from_proto(self._call("ConfigureProvider", request).diagnostics)

    def stop_provider(self, timeout: float = STOP_TIMEOUT) -> str:
        """Ask the provider to cancel what it is doing (an interrupt); returns its error text."""
        self._stopped = True
        response = self._call("StopProvider", self._request("StopProvider"), timeout=timeout)
        error: str = response.Error
        return error

    def close(self, settle: float = SETTLE_TIMEOUT) -> None:
        """Stop gracefully once no call is under way: StopProvider, go-plugin's Shutdown, then kill
        after a grace period.

        StopProvider cancels every call the provider is running, and Shutdown drops the connection
        under them, so a call still in flight when closing begins (a run that ends early while some
        operations are still running) would fail as if the provider had broken ("context canceled",
        a cut request to the cloud), its half-done work left behind. So closing first refuses new
        calls and waits, up to ``settle`` seconds, for
        the answers of those under way, as Terraform closes a provider only after every operation
        that uses it. A run that is given up on has asked its providers to stop already
        (``PluginSession.interrupt``): its calls are waited for only the shutdown's grace period.
        """
        if self._stopped:
            settle = min(settle, SHUTDOWN_GRACE)
        with self._settled:
            self._closing = True
            if not self._settled.wait_for(lambda: self._in_flight == 0, timeout=settle):
                _log.warning("Provider %s: closed with %d call(s) still under way after %g s",
                             self.process.name, self._in_flight, settle)
        if self.process.channel is not None and self.process.exit_status is None:
            with contextlib.suppress(PluginCallError):
                self.stop_provider(timeout=2.0)
        self.process.close()

    # -- resources and data sources ------------------------------------------------------------

    def validate_resource_config(self, type_name: str, config: Value) -> list[PluginDiagnostic]:
        request = self._request("ValidateResourceConfig", type_name=type_name, config=_dynamic(self._pb, config))
        return diagnostics_from_proto(self._call("ValidateResourceConfig", request).diagnostics)

    def validate_data_resource_config(self, type_name: str, config: Value) -> list[PluginDiagnostic]:
        request = self._request(
            "ValidateDataResourceConfig", type_name=type_name, config=_dynamic(self._pb, config)
        )
        return diagnostics_from_proto(self._call("ValidateDataResourceConfig", request).diagnostics)

    def upgrade_resource_state(self, type_name: str, version: int, raw_json: bytes | str | dict[str, Any]) -> StateResult:
        """Bring stored state (its JSON, written under schema ``version``) to the current schema."""
        if isinstance(raw_json, dict):
            raw_json = json.dumps(raw_json)
        if isinstance(raw_json, str):
            raw_json = raw_json.encode()
        request = self._request(
            "UpgradeResourceState", type_name=type_name, version=version, raw_state=self._pb.RawState(json=raw_json)
        )
        response = self._call("UpgradeResourceState", request)
        return StateResult(_value(response, "upgraded_state"), diagnostics_from_proto(response.diagnostics))

    def read_resource(self, type_name: str, current_state: Value, private: bytes = b"") -> StateResult:
        """Refresh: the object as it is now; ``state`` None means it no longer exists."""
        request = self._request(
            "ReadResource",
            type_name=type_name,
            current_state=_dynamic(self._pb, current_state),
            private=private,
        )
        response = self._call("ReadResource", request)
        return StateResult(
            _value(response, "new_state"),
            diagnostics_from_proto(response.diagnostics),
            private=response.private,
            deferred=_deferred(response),
        )

    def plan_resource_change(
        self,
        type_name: str,
        prior_state: Value | None,
        proposed_new_state: Value | None,
        config: Value | None,
        prior_private: bytes = b"",
    ) -> PlannedChange:
        """The provider's plan; a None proposed state and config plan a destroy."""
        request = self._request(
            "PlanResourceChange",
            type_name=type_name,
            prior_state=_dynamic(self._pb, prior_state),
            proposed_new_state=_dynamic(self._pb, proposed_new_state),
            config=_dynamic(self._pb, config),
            prior_private=prior_private,
        )
        response = self._call("PlanResourceChange", request)
        return PlannedChange(
            planned_state=_value(response, "planned_state"),
            requires_replace=[path_from_proto(p) for p in response.requires_replace],
            planned_private=response.planned_private,
            legacy_type_system=response.legacy_type_system,
            diagnostics=diagnostics_from_proto(response.diagnostics),
            deferred=_deferred(response),
        )

    def apply_resource_change(
        self,
        type_name: str,
        prior_state: Value | None,
        planned_state: Value | None,
        config: Value | None,
        planned_private: bytes = b"",
    ) -> AppliedChange:
        """Carry out a planned change; a None planned state destroys the object."""
        request = self._request(
            "ApplyResourceChange",
            type_name=type_name,
            prior_state=_dynamic(self._pb, prior_state),
            planned_state=_dynamic(self._pb, planned_state),
            config=_dynamic(self._pb, config),
            planned_private=planned_private,
        )
        response = self._call("ApplyResourceChange", request)
        return AppliedChange(
            new_state=_value(response, "new_state"),
            private=response.private,
            legacy_type_system=response.legacy_type_system,
            diagnostics=diagnostics_from_proto(response.diagnostics),
        )

    def import_resource_state(self, type_name: str, import_id: str) -> ImportResult:
        response = self._call("ImportResourceState", self._request("ImportResourceState", type_name=type_name, id=import_id))
        return ImportResult(
            resources=[
                ImportedResource(r.type_name, _value(r, "state"), r.private) for r in response.imported_resources
            ],
            diagnostics=diagnostics_from_proto(response.diagnostics),
            deferred=_deferred(response),
        )

    def read_data_source(self, type_name: str, config: Value) -> StateResult:
        request = self._request("ReadDataSource", type_name=type_name, config=_dynamic(self._pb, config))
        response = self._call("ReadDataSource", request)
        return StateResult(
            _value(response, "state"), diagnostics_from_proto(response.diagnostics), deferred=_deferred(response)
        )

    # -- provider functions (protocol 5.5+ and 6.5+) -------------------------------------------

    def get_functions(self) -> tuple[dict[str, dict[str, Any]], list[PluginDiagnostic]]:
        """Function signatures in Terraform's JSON shape; ({}, []) from providers without them."""
        try:
            method, request_cls = self._callable("GetFunctions")
            response = method(request_cls())
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.UNIMPLEMENTED:
                return {}, []
            raise self._transport_error("GetFunctions", exc) from None
        functions = {name: proto_schema.function(f) for name, f in sorted(response.functions.items())}
        return functions, diagnostics_from_proto(response.diagnostics)

    def call_function(self, name: str, arguments: Sequence[Value | None]) -> FunctionResult:
        request = self._request(
            "CallFunction", name=name, arguments=[_dynamic(self._pb, a) for a in arguments]
        )
        response = self._call("CallFunction", request)
        if response.HasField("error") and response.error.text:
            argument = response.error.function_argument if response.error.HasField("function_argument") else None
            return FunctionResult(None, response.error.text, argument)
        return FunctionResult(_value(response, "result"))
