"""ctl's msgpack codec against go-cty itself, byte for byte, on generated cases.

``tests/ctyoracle`` is a small Go program built on go-cty's own ``cty/msgpack`` package (fetched
through the Go module proxy on first build, then cached in ``tests/ctyoracle/.build``). A seeded
generator makes a few hundred (type, value) cases — nested objects, sets of objects, unknowns in
collections, dynamic values, big and fractional numbers — and each is encoded by both sides; then
each side reads the other's bytes. Without Go the test is skipped, except in CI, where it fails.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import unicodedata
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from adapters.plugin.cty_json import encode_json
from adapters.plugin.msgpack_codec import decode, encode
from vocab.conversion.convert import ConversionError, convert
from vocab.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    TupleType,
    parse_type,
    type_to_json_value,
)
from vocab.values import UNKNOWN, Marked, SetValue, Unknown

ORACLE_DIR = Path(__file__).resolve().parents[2] / "ctyoracle"
BINARY = ORACLE_DIR / ".build" / "ctyoracle"
SEED = 20261203
CASES = 1000


def _go() -> str | None:
    found = shutil.which("go")
    if found:
        return found
    fallback = Path("/usr/local/go/bin/go")
    return str(fallback) if fallback.exists() else None


@pytest.fixture(scope="module")
def oracle() -> Path:
    """The oracle binary, rebuilt only when its sources are newer than it."""
    go = _go()
    if go is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the cty oracle needs Go (https://go.dev/dl/) and CI=true forbids skipping")
        pytest.skip("Go is not installed: the byte-for-byte comparison with go-cty needs it")
    sources = [ORACLE_DIR / n for n in ("main.go", "go.mod", "go.sum")]
    if not BINARY.exists() or BINARY.stat().st_mtime < max(s.stat().st_mtime for s in sources):
        BINARY.parent.mkdir(exist_ok=True)
        # Built under a name of this process's own and renamed into place: a parallel run's other
        # worker never executes a half-written binary.
        built = BINARY.with_name(f"{BINARY.name}.{os.getpid()}")
        proc = subprocess.run(
            [go, "build", "-o", str(built), "."],
            cwd=ORACLE_DIR,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "GOFLAGS": "-buildvcs=false"},
        )
        assert proc.returncode == 0, f"building the cty oracle failed:\n{proc.stderr}"
        os.replace(built, BINARY)
    return BINARY


def ask(oracle: Path, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    lines = "".join(json.dumps(r, default=_unknown_json) + "\n" for r in requests)
    proc = subprocess.run([str(oracle)], input=lines, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == len(requests)
    return answers


def _unknown_json(v: Any) -> Any:
    if isinstance(v, Unknown):
        return {"__unknown__": True}
    raise TypeError(f"cannot send {v!r} to the oracle")


# ---- a seeded generator of types and values --------------------------------------------------------

NAMES = ["id", "name", "port", "tags", "rule", "cidr", "a", "b", "z_last", "Enabled", "ünï"]
STRINGS = ["", "x", "hello world", "10.0.0.0/8", "ünïcödé", "e\u0301", "tab\there", 'quote"d', "Z", "a" * 40]
NUMBERS = [0, 1, -1, 7, 127, 128, -33, 255, 65536, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 2**63, 2**64, 10**30,
           0.5, -0.25, 0.1, 3.14, 1e-7, 1.5, 100.125, 1e20, 123456.789]  # fmt: skip


def gen_type(rng: random.Random, depth: int, allow_dynamic: bool = True) -> CtyType:
    roll = rng.random()
    if depth <= 0 or roll < 0.35:
        choices = [STRING, NUMBER, BOOL] + ([DYNAMIC] if allow_dynamic else [])
        return rng.choice(choices)
    kind = rng.choice(["list", "set", "map", "object", "object", "tuple"])
    if kind in ("list", "set", "map"):
        # Collections of dynamic need a single element type, which literal values do not give.
        return Collection(kind, gen_type(rng, depth - 1, allow_dynamic=False))
    if kind == "tuple":
        return TupleType(tuple(gen_type(rng, depth - 1, allow_dynamic) for _ in range(rng.randint(0, 3))))
    names = rng.sample(NAMES, rng.randint(0, 4))
    return ObjectType({n: gen_type(rng, depth - 1, allow_dynamic) for n in names})


def gen_value(rng: random.Random, ty: CtyType) -> Any:
    roll = rng.random()
    if roll < 0.08:
        return None
    if roll < 0.14:
        return UNKNOWN
    kind = ty.kind
    if kind == "string":
        return rng.choice(STRINGS)
    if kind == "number":
        return rng.choice(NUMBERS)
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "dynamic":
        return gen_literal(rng, 2)
    if isinstance(ty, Collection):
        count = rng.randint(0, 4)
        if kind == "map":
            return {rng.choice(NAMES): gen_value(rng, ty.element) for _ in range(count)}
        items = [gen_value(rng, ty.element) for _ in range(count)]
        return SetValue(items) if kind == "set" else items
    if isinstance(ty, TupleType):
        return [gen_value(rng, t) for t in ty.elements]
    assert isinstance(ty, ObjectType)
    return {n: gen_value(rng, t) for n, t in ty.attributes.items() if rng.random() < 0.9}


def gen_literal(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth <= 0 or roll < 0.5:
        return rng.choice([None, True, False, *STRINGS[:4], *NUMBERS[:5], 0.5, 0.1, 2**70])
    if roll < 0.75:
        return [gen_literal(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(NAMES): gen_literal(rng, depth - 1) for _ in range(rng.randint(0, 3))}


# Cases a random generator is unlikely to hit: ties in cty's set ordering, quoting in hash text.
FIXED: list[tuple[str, Any]] = [
    ('["set",["object",{"n":"number"}]]', [{"n": 12345678902}, {"n": 12345678901}]),
    ('["set",["object",{"n":"number"}]]', [{"n": 12345678901}, {"n": 12345678902}, {"n": 12345678901}]),
    ('["set",["object",{"n":"number"}]]', [{"n": 0.1}, {"n": 0.5}, {"n": 1e-7}, {"n": 1e20}, {"n": -3}]),
    ('["set",["object",{"s":"string"}]]', [{"s": "b\n"}, {"s": "b\t"}, {"s": 'q"'}, {"s": "\\"}, {"s": "é"}]),
    (
        '["set",["object",{"s":"string"}]]',
        [{"s": "\u0301"}, {"s": "\x7f"}, {"s": "\u200b"}, {"s": "\U0001f600"}],
    ),
    ('["set",["tuple",["string","bool"]]]', [["a", True], ["a", False], ["a", None]]),
    ('["set",["map","number"]]', [{"b": 1}, {"a": 2}, {}, {"a": 1, "b": 1}]),
    ('["set",["set","string"]]', [["b"], ["a", "b"], [], ["a"]]),
    ('["set",["list",["object",{"x":"bool"}]]]', [[{"x": True}], [{"x": False}], [{"x": None}]]),
    ('["set","number"]', [2**64, 2**63, -(2**63), 0.1, 0.5, 10**30, -1]),
    ('["set","string"]', ["e\u0301", "é", "z", "Z"]),
]


def cases() -> list[tuple[CtyType, Any]]:
    rng = random.Random(SEED)
    out = [(parse_type(t), SetValue(v) if t.startswith('["set"') else v) for t, v in FIXED]
    for _ in range(CASES):
        ty = gen_type(rng, 3)
        out.append((ty, gen_value(rng, ty)))
    return out


# ---- the comparison --------------------------------------------------------------------------------


def test_generated_cases_cover_the_interesting_shapes() -> None:
    kinds = {ty.kind for ty, _ in cases()}
    assert kinds >= {"string", "number", "bool", "dynamic", "list", "set", "map", "object", "tuple"}
    blobs = [json.dumps(v, default=_unknown_json) for _, v in cases()]
    assert any("__unknown__" in b for b in blobs)
    assert any("18446744073709551616" in b for b in blobs)


def test_encoding_matches_go_cty_byte_for_byte(oracle: Path) -> None:
    generated = cases()
    answers = ask(
        oracle, [{"op": "encode", "type": type_to_json_value(ty), "value": value} for ty, value in generated]
    )
    mismatches = []
    for (ty, value), answer in zip(generated, answers, strict=True):
        assert "error" not in answer, f"go-cty refused {value!r} as {ty}: {answer['error']}"
        ours = encode(value, ty)[0].hex()
        if ours != answer["hex"]:
            mismatches.append(f"{ty} {value!r}\n  ctl:    {ours}\n  go-cty: {answer['hex']}")
    assert not mismatches, f"{len(mismatches)} of {len(generated)} differ:\n" + "\n".join(mismatches[:5])


def test_each_side_reads_the_others_bytes(oracle: Path) -> None:
    generated = cases()
    ours = [encode(value, ty)[0] for ty, value in generated]
    # go-cty reads ctl's bytes and writes them again: the same bytes, so it read the same value.
    answers = ask(
        oracle,
        [
            {"op": "decode", "type": type_to_json_value(ty), "hex": b.hex()}
            for (ty, _), b in zip(generated, ours, strict=True)
        ],
    )
    requests = []
    for (ty, _), answer in zip(generated, answers, strict=True):
        assert "error" not in answer, answer
        requests.append({"op": "encode", "type": type_to_json_value(ty), "value": answer.get("value")})
    again = ask(oracle, requests)
    for b, answer in zip(ours, again, strict=True):
        assert answer["hex"] == b.hex()
    # ctl reads go-cty's bytes (the same ones) back to a value that encodes identically — except
    # where cty's set order is a tie (members differing only past ten digits), which keeps the
    # order the members arrived in, while ctl holds sets in its own order: the same set.
    for (ty, _), b in zip(generated, ours, strict=True):
        back = decode(b, ty)
        again = encode(back, ty)[0]
        if again != b:
            assert "12345678901" in repr(back), f"{ty} {back!r}"
            assert decode(again, ty) == back


def test_json_encoding_matches_go_cty_byte_for_byte(oracle: Path) -> None:
    known = [(ty, v) for ty, v in cases() if "__unknown__" not in json.dumps(v, default=_unknown_json)]
    assert len(known) > 300
    answers = ask(oracle, [{"op": "json", "type": type_to_json_value(ty), "value": v} for ty, v in known])
    for (ty, value), answer in zip(known, answers, strict=True):
        assert "error" not in answer, answer
        assert encode_json(value, ty).decode() == answer["json"], f"{ty} {value!r}"


@pytest.mark.parametrize(
    ("ty", "refine"),
    [
        ('"string"', {"notnull": True}),
        ('"string"', {"notnull": True, "prefix": "arn:aws:iam::"}),
        ('"string"', {"prefix": "ü" * 300}),
        ('"number"', {"notnull": True, "min": 0, "max": 65535}),
        ('"number"', {"min": -1.5}),
        ('["list","string"]', {"notnull": True, "lenmin": 1, "lenmax": 5}),
        ('["set",["object",{"a":"string"}]]', {"lenmin": 2}),
        ('["map","number"]', {"lenmax": 0}),
        ('"dynamic"', {}),
        ('"bool"', {"notnull": True}),
    ],
)
def test_refined_unknowns_from_go_cty_read_as_unknown(oracle: Path, ty: str, refine: dict) -> None:
    (answer,) = ask(oracle, [{"op": "refined", "type": json.loads(ty), "refine": refine}])
    assert "error" not in answer, answer
    data = bytes.fromhex(answer["hex"])
    assert isinstance(decode(data, parse_type(ty)), Unknown)
    # Inside an object, the refined unknown is skipped over exactly: the next attribute still reads.
    obj = parse_type(f'["object",{{"a":{ty},"b":"string"}}]')
    wire = bytes.fromhex("82 a161") + data + bytes.fromhex("a162 a178")
    got = decode(wire, obj)
    assert isinstance(got["a"], Unknown)
    assert got["b"] == "x"


# ---- conversion: results and refusals as cty's convert.Convert gives them ------------------------


def _normal(value: Any, ty: CtyType) -> Any:
    """A converted value with sets in one fixed order, so ctl's and cty's orders compare."""
    if isinstance(value, Marked):
        value = value.value
    if value is None or isinstance(value, Unknown) or (isinstance(value, dict) and "__unknown__" in value):
        return "<unknown>" if value is not None else None
    kind = ty.kind
    if kind in ("list", "set"):
        items = [_normal(x, ty.element) for x in value]
        return sorted(items, key=lambda x: json.dumps(x, sort_keys=True)) if kind == "set" else items
    if kind == "map":
        return {k: _normal(v, ty.element) for k, v in value.items()}
    if isinstance(ty, ObjectType):
        return {n: _normal(value.get(n), t) for n, t in ty.fields}
    if isinstance(ty, TupleType):
        return [_normal(x, t) for x, t in zip(value, ty.elements, strict=True)]
    if kind == "number" and isinstance(value, str):
        return float(value)  # the oracle spells infinities as text
    if kind == "number" and isinstance(value, float) and value.is_integer():
        return int(Decimal(repr(value)))  # 1e20 is the integer 10**20 to cty
    # cty holds strings in NFC; ctl normalises them when they cross the wire.
    return unicodedata.normalize("NFC", value) if isinstance(value, str) else value


def _literal(value: Any) -> Any:
    """A generated value as a configuration literal: sets are tuples there."""
    if isinstance(value, list):
        return [_literal(x) for x in value]
    if isinstance(value, dict):
        return {k: _literal(x) for k, x in value.items()}
    return value


def _stringify(rng: random.Random, value: Any) -> Any:
    if isinstance(value, list):
        return [_stringify(rng, x) for x in value]
    if isinstance(value, dict):
        return {k: _stringify(rng, x) for k, x in value.items()}
    if isinstance(value, bool):
        return (
            rng.choice(["true", "false", "True", "FALSE", "yes", "1", "0"]) if rng.random() < 0.5 else value
        )
    if isinstance(value, int | float) and rng.random() < 0.5:
        return rng.choice(
            [json.dumps(value), "abc", " 1", "1e3", "0x10", "+1", ".5", "1.", "-Inf", "1_000", ""]
        )
    return value


def conversion_cases() -> list[tuple[CtyType, Any]]:
    rng = random.Random(SEED + 1)
    out = []
    for _ in range(CASES):
        ty = gen_type(rng, 2)
        if rng.random() < 0.5:
            value = _literal(gen_value(rng, ty))
        else:
            value = gen_literal(rng, 2)
        if rng.random() < 0.3:  # numbers and bools written as strings, as variables often are
            value = _stringify(rng, value)
        out.append((ty, value))
    return out


def test_conversion_matches_go_cty(oracle: Path) -> None:
    generated = conversion_cases()
    requests = [{"op": "convert", "type": type_to_json_value(ty), "value": v} for ty, v in generated]
    answers = ask(oracle, requests)
    refused = 0
    for (ty, value), request, answer in zip(generated, requests, answers, strict=True):
        case = f"{ty} {value!r}: go-cty {answer}"
        try:
            ours = convert(value, ty)
        except ConversionError as e:
            assert "error" in answer, f"{case}; ctl refused: {e.message} at {list(e.path)}"
            got = (e.message, list(e.path))
            if got != (answer["error"], answer.get("path", [])):
                # cty names one mismatched attribute of several, whichever its map iteration meets
                # first: ask again until it names ours (or clearly never will).
                seen = {a["error"] for a in ask(oracle, [request] * 40)}
                assert e.message in seen and got[1] == answer.get("path", []), (
                    f"{case}; ctl: {got}; go-cty also: {seen}"
                )
            refused += 1
            continue
        assert "error" not in answer, f"{case}; ctl converted to {ours!r}"
        assert _normal(ours, ty) == _normal(answer.get("value"), ty), case
    assert 0.2 * len(generated) < refused < 0.9 * len(generated)
