"""``local_file`` and ``local_sensitive_file``: a file on this machine with the given content.

Behaviour follows Terraform's local provider: every argument forces replacement (there is no
in-place update), the ``id`` is the hex SHA-1 of the bytes written, and refresh treats a file that
is missing *or whose content changed* as gone, so the next plan recreates it.
"""

from __future__ import annotations

from typing import Any

from adapters._attributes import complete
from adapters.base import AdapterContext, AdapterError, ResourceType
from adapters.local import _files
from adapters.local.schemas import CONTENT_ARGS, HASHES, file_schema
from vocab.regular_file import NotRegularFile, read_regular
from vocab.values import deep_unmark


class LocalFile(ResourceType):
    """A file whose content ctl owns; changing anything about it rewrites it."""

    name = "local_file"
    schema = file_schema(permission="0777", with_sensitive_content=True)
    computed = frozenset({"id", *HASHES})
    replace_on = frozenset({"filename", *CONTENT_ARGS, "file_permission", "directory_permission"})
    sensitive = frozenset({"sensitive_content"})

    def plan(
        self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]
    ) -> dict[str, Any]:
        # The checksums could be computed from `content` now, but Terraform shows them as
        # known after apply (they depend on the bytes actually written), and so do we.
        return super().plan(ctx, prior, complete(self.schema, planned))

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = complete(self.schema, planned)
        attrs, _ = deep_unmark(out)
        path = _files.writable(ctx, attrs["filename"])
        data = self._content(ctx, attrs)
        file_mode = _files.parse_mode(ctx, "file_permission", attrs["file_permission"])
        dir_mode = _files.parse_mode(ctx, "directory_permission", attrs["directory_permission"])
        try:
            _files.make_dirs(path.parent, dir_mode)
            _files.write_atomically(path, data, file_mode)
        except OSError as exc:
            raise AdapterError(
                f"cannot write {path}: {exc.strerror or exc}",
                hint="check that the directory is writable and the path is not a directory",
                address=ctx.address,
            ) from exc
        out.update(_files.checksums(data))
        return out

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        plain, _ = deep_unmark(attrs)
        path = _files.resolve(ctx, plain["filename"])
        try:
            data = read_regular(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise AdapterError(f"cannot read {path}: {exc.strerror or exc}", address=ctx.address) from exc
        if _files.sha1_hex(data) != plain.get("id"):
            return None  # changed outside ctl: report it gone so the plan writes it again
        return attrs

    def findable(self, ctx: AdapterContext, identity: dict[str, Any]) -> bool:
        return isinstance(identity.get("filename"), str)

    def find(self, ctx: AdapterContext, identity: dict[str, Any]) -> dict[str, Any] | None:
        """The file at the planned path, when it holds the planned bytes.

        Sensitive content is never journaled, so when the content is not in ``identity`` any file
        at the path is adopted with its checksums; the plan that follows rewrites it if it differs.
        """
        filename = identity.get("filename")
        if not isinstance(filename, str):
            return None
        path = _files.resolve(ctx, filename)
        try:
            data = read_regular(path)
        except (FileNotFoundError, NotADirectoryError, NotRegularFile):
            return None  # not the file the create was writing
        except OSError as exc:
            raise AdapterError(f"cannot read {path}: {exc.strerror or exc}", address=ctx.address) from exc
        out = complete(self.schema, identity)
        content_known = any(out.get(n) is not None for n in CONTENT_ARGS if n in self.schema["properties"])
        if content_known and self._content(ctx, out) != data:
            return None  # not what the create was writing: the next apply writes it
        out.update(_files.checksums(data))
        return out

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        # Every argument forces replacement, so an update only ever carries state-only changes.
        out = complete(self.schema, planned)
        out.update({name: prior.get(name) for name in self.computed})
        return out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        plain, _ = deep_unmark(prior)
        path = _files.writable(ctx, plain["filename"])
        _files.sweep_leftovers(path)
        try:
            path.unlink()
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as exc:
            raise AdapterError(f"cannot delete {path}: {exc.strerror or exc}", address=ctx.address) from exc

    def _content(self, ctx: AdapterContext, attrs: dict[str, Any]) -> bytes:
        """The bytes to write, from whichever one content argument is set."""
        given = [
            name for name in CONTENT_ARGS if name in self.schema["properties"] and attrs.get(name) is not None
        ]
        if len(given) != 1:
            allowed = ", ".join(n for n in CONTENT_ARGS if n in self.schema["properties"])
            raise AdapterError(
                f"exactly one of {allowed} must be set" + (f"; got {', '.join(given)}" if given else ""),
                address=ctx.address,
            )
        arg = given[0]
        value = str(attrs[arg])
        if arg == "content_base64":
            return _files.b64decode(ctx, value)
        if arg == "source":
            source = _files.resolve(ctx, value)
            try:
                return read_regular(source, pipes=True)
            except OSError as exc:
                raise AdapterError(
                    f"cannot read source file {source}: {exc.strerror or exc}", address=ctx.address
                ) from exc
        return value.encode("utf-8")


class LocalSensitiveFile(LocalFile):
    """``local_file`` whose content is sensitive and whose default permissions are private."""

    name = "local_sensitive_file"
    schema = file_schema(permission="0700", with_sensitive_content=False)
    replace_on = frozenset(
        {"filename", "content", "content_base64", "source", "file_permission", "directory_permission"}
    )
    sensitive = frozenset({"content", "content_base64"})
