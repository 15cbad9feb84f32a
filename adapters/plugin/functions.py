"""Provider-defined functions: ``provider::NAME::FUNC(...)`` answered by the provider's process.

Terraform calls a provider's functions on an instance it never configures, so one unconfigured
process per provider serves every call of a run, started on the first call (a configuration that
calls none starts none) and stopped at exit. Arguments are encoded with the parameter types the
provider declared, the result decoded with its return type. A call with an unknown argument is
unknown (unless the parameter accepts unknown values), and a secret argument makes the result secret,
as in Terraform. The provider's own error text comes back naming the argument it blames.
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

from adapters.plugin.dynamic_value import decode_dynamic_value
from adapters.plugin.msgpack_codec import encode
from adapters.plugin.spec import PluginSpec
from vocab.errors import CtlError
from vocab.types import parse_type
from vocab.values import UNKNOWN, contains_unknown, deep_unmark, mark


class ProviderFunctionError(CtlError):
    """A provider function refused its arguments; ``arg_index`` is the one it blames (0-based)."""

    def __init__(self, message: str, arg_index: int | None = None) -> None:
        super().__init__(message)
        self.arg_index = arg_index


class ProviderFunctions:
    """The functions of one plugin provider, called through one process started on first use."""

    def __init__(self, spec: PluginSpec) -> None:
        self.spec = spec
        self.signatures: dict[str, dict[str, Any]] = dict(spec.schema.get("functions") or {})
        self._client: Any = None
        self._lock = threading.Lock()

    def call(self, name: str, args: list[Any]) -> Any:
        signature = self.signatures[name]
        params = signature.get("parameters") or []
        variadic = signature.get("variadic_parameter")
        if len(args) < len(params) or (variadic is None and len(args) > len(params)):
            expected = f"{len(params)}{' or more' if variadic else ''}"
            raise ProviderFunctionError(f"takes {expected} argument(s), not {len(args)}")
        plain, marks = deep_unmark(args)
        encoded = []
        for i, value in enumerate(plain):
            param: dict[str, Any] = params[i] if i < len(params) else (variadic or {})
            if contains_unknown(value) and not param.get("allow_unknown_values"):
                return mark(UNKNOWN, marks) if marks else UNKNOWN
            if value is None and not param.get("is_nullable"):
                raise ProviderFunctionError(f'argument "{param["name"]}" must not be null', i)
            data, _ = encode(value, parse_type(param["type"]))
            encoded.append(data)
        answer = self._started().call_function(name, encoded)
        if answer.error:
            raise ProviderFunctionError(answer.error, answer.error_argument)
        result = decode_dynamic_value(answer.result, parse_type(signature["return_type"]))
        return mark(result, marks) if marks else result

    def _started(self) -> Any:
        with self._lock:
            if self._client is None:
                from adapters.plugin.client import PluginClient

                self._client = PluginClient.launch(str(self.spec.executable), name=self.spec.source)
                atexit.register(self._client.close)
            return self._client
