"""Reading a state from its file a resource at a time gives exactly what decoding its bytes gives,
whatever the size of the windows the file is read in (markers straddle them)."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pytest

from backends.base import BackendError
from engine.state import piecewise_file
from engine.state.codec import decode_state, decode_state_file
from engine.state.encode import encode_state

_RESOURCE = {
    "mode": "managed", "type": "terraform_data", "name": "a", "provider": 'provider["terraform.io/builtin/terraform"]',
    "instances": [{"schema_version": 0, "attributes": {"id": "x", "input": {"value": "v", "type": "string"},
                                                      "output": {"value": "v", "type": "string"},
                                                      "triggers_replace": None},
                   "sensitive_attributes": []}],
}
DOC = {
    "version": 4, "terraform_version": "1.6.0", "serial": 3, "lineage": "5b1c8f3e-0000-4000-8000-000000000002",
    "outputs": {"o": {"value": ["a", 1], "type": ["tuple", ["string", "number"]]}},
    "resources": [{**copy.deepcopy(_RESOURCE), "name": f"r{i}"} for i in range(40)] + [
        {"module": "module.m", "mode": "managed", "type": "local_file", "name": "f", "each": "map",
         "provider": 'provider["registry.terraform.io/hashicorp/local"]',
         "instances": [{"index_key": k, "schema_version": 0, "attributes": {"content": "é ☃ 😀", "filename": k},
                        "sensitive_attributes": [[{"type": "get_attr", "value": "content"}]],
                        "dependencies": ["terraform_data.r0"]} for k in ("a", "b")]},
    ],
    "check_results": None,
}
WINDOWS = [7, 13, 24, 64, 1 << 20]  # smaller than every marker, than each, and larger than the file


@pytest.fixture(params=WINDOWS)
def window(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(piecewise_file, "WINDOW", request.param)
    return int(request.param)


def _indented(doc: dict) -> bytes:
    return json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n"


def _from_file(data: bytes) -> object:
    return decode_state_file(io.BytesIO(data), "s")


def test_the_usual_layout_is_read_from_the_file_and_equals_decoding_its_bytes(window: int) -> None:
    data = _indented(DOC)
    split = piecewise_file.split_file(io.BytesIO(data))
    assert split is not None
    assert len(list(split[1])) == len(DOC["resources"])
    state = _from_file(data)
    assert encode_state(state) == encode_state(decode_state(data, "s"))
    assert state.resources[-1].instances[0].attributes["content"] == "é ☃ 😀"


def test_a_state_written_by_ctl_reads_back_from_its_file(window: int, tmp_path: Path) -> None:
    written = encode_state(decode_state(_indented(DOC), "s"))
    path = tmp_path / "ctl.tfstate"
    path.write_bytes(written)
    with path.open("rb") as f:
        assert encode_state(decode_state_file(f, str(path))) == written


def test_check_results_after_the_resources_end_as_they_do_are_kept(window: int) -> None:
    doc = copy.deepcopy(DOC)
    doc["check_results"] = [{"object_kind": "check", "config_addr": "check.c", "status": "pass", "objects": None}]
    data = _indented(doc)
    assert b"\n  ]" in data[data.index(b'"check_results"'):]  # the tail holds the resources' end marker too
    assert piecewise_file.split_file(io.BytesIO(data)) is not None
    state = _from_file(data)
    assert state.check_results == doc["check_results"]
    assert len(state.resources) == len(doc["resources"])


def test_another_layout_is_read_whole_and_equals_decoding_its_bytes(window: int) -> None:
    data = json.dumps(DOC).encode()
    assert piecewise_file.split_file(io.BytesIO(data)) is None
    assert encode_state(_from_file(data)) == encode_state(decode_state(data, "s"))


@pytest.mark.parametrize("text", ["\n    },\n    {", "\n  ]", '\n  "resources": [\n    {'])
def test_data_that_looks_like_the_layout_is_read_as_data(window: int, text: str) -> None:
    doc = copy.deepcopy(DOC)
    doc["resources"][-1]["instances"][1]["attributes"]["content"] = text
    state = _from_file(_indented(doc))
    assert state.resources[-1].instances[1].attributes["content"] == text
    assert len(state.resources) == len(doc["resources"])


def test_a_corrupt_resource_is_reported_as_decoding_the_bytes_reports_it(window: int) -> None:
    doc = copy.deepcopy(DOC)
    doc["resources"][30]["instances"][0]["schema_version"] = "zero"
    data = _indented(doc)
    with pytest.raises(BackendError) as from_bytes:
        decode_state(data, "s")
    with pytest.raises(BackendError) as from_file:
        _from_file(data)
    assert from_file.value.summary == from_bytes.value.summary
    assert "resources[30].instances[0].schema_version" in from_file.value.summary


def test_a_syntax_error_is_reported_with_its_line_and_column(window: int) -> None:
    data = _indented(DOC).replace(b'"filename": "b"', b'"filename": "b",,')
    with pytest.raises(BackendError) as from_bytes:
        decode_state(data, "s")
    with pytest.raises(BackendError) as from_file:
        _from_file(data)
    assert from_file.value.summary == from_bytes.value.summary
    assert "line" in from_file.value.summary and "column" in from_file.value.summary


def test_a_file_that_cannot_be_read_is_a_clear_error() -> None:
    class Failing(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            raise OSError(5, "Input/output error")

    with pytest.raises(BackendError, match="cannot read the state at s: Input/output error"):
        decode_state_file(Failing(_indented(DOC)), "s")
