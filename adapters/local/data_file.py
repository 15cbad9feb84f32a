"""Data sources ``local_file`` and ``local_sensitive_file``: read a file that exists already."""

from __future__ import annotations

from typing import Any

from adapters._attributes import complete
from adapters.base import AdapterContext, AdapterError, ResourceType
from adapters.local import _files
from adapters.local.schemas import HASHES, data_file_schema
from vocab.regular_file import read_regular
from vocab.values import deep_unmark


class LocalFileData(ResourceType):
    """The content and checksums of a file; a missing file is an error naming the path."""

    name = "local_file"
    mode = "data"
    schema = data_file_schema()
    computed = frozenset({"content", "content_base64", "id", *HASHES})

    def plan(
        self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]
    ) -> dict[str, Any]:
        return super().plan(ctx, prior, complete(self.schema, planned))

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        out = complete(self.schema, attrs)
        plain, _ = deep_unmark(out)
        path = _files.resolve(ctx, plain["filename"])
        try:
            data = read_regular(path)
        except FileNotFoundError as exc:
            raise AdapterError(
                f"file {path} does not exist",
                hint="create it first, or use the local_file resource to manage it",
                address=ctx.address,
            ) from exc
        except OSError as exc:
            raise AdapterError(f"cannot read {path}: {exc.strerror or exc}", address=ctx.address) from exc
        out.update(_files.checksums(data))
        out["content"] = data.decode("utf-8", errors="replace")
        out["content_base64"] = _files.b64encode(data)
        return out


class LocalSensitiveFileData(LocalFileData):
    """The ``local_file`` data source with ``content`` and ``content_base64`` sensitive."""

    name = "local_sensitive_file"
    sensitive = frozenset({"content", "content_base64"})
