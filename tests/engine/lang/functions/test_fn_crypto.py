"""Hash and UUID functions, checked against the examples in Terraform's function documentation."""

import base64
import gzip
import re
from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function
from vocab.values import Unknown

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))

HELLO = {
    "md5": "5eb63bbbe01eeed093cb22bb8f5acdc3",
    "sha1": "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed",
    "sha256": "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9",
    "sha512": "309ecc489c12d6eb4cc40f50c902f2b4d0ed77ee511a7c7a9bcd3ca86d4cd86f989dd35bc5ff499670da34255b45b0cfd830e81f605dcf7dc5542e93ae9cd76f",
    "base64sha256": "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=",
    "base64sha512": "MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw==",
}


def call(name: str, *args: object, ctx: FunctionContext = CTX) -> object:
    return call_function(name, list(args), ctx)


@pytest.mark.parametrize(("fn", "expected"), sorted(HELLO.items()))
def test_string_hashes(fn: str, expected: str) -> None:
    assert call(fn, "hello world") == expected


@pytest.mark.parametrize(("fn", "expected"), sorted(HELLO.items()))
def test_file_hashes_match_the_string_hashes(tmp_path: Path, fn: str, expected: str) -> None:
    (tmp_path / "hello.txt").write_text("hello world")
    ctx = FunctionContext(base_dir=tmp_path, module_dir=tmp_path)
    assert call(f"file{fn}", "hello.txt", ctx=ctx) == expected


def test_base64gzip_is_gzip_of_the_utf8_text() -> None:
    encoded = call("base64gzip", "hello world ☃")
    assert gzip.decompress(base64.b64decode(encoded)) == "hello world ☃".encode()


@pytest.mark.parametrize(
    ("namespace", "name", "expected"),
    [
        ("dns", "www.terraform.io", "a5008fae-b28c-5ba5-96cd-82b4c53552d6"),
        ("url", "https://www.terraform.io/", "9db6f67c-dd95-5ea0-aa5b-e70e5c5f7cf5"),
        ("oid", "1.3.6.1.4", "af9d40a5-7a36-5c07-b23a-851cd99fbfa5"),
        ("x500", "CN=Example,C=GB", "84e09961-4aa4-57f8-95b7-03edb1073253"),
        ("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "www.terraform.io", "a5008fae-b28c-5ba5-96cd-82b4c53552d6"),
        (
            "743ac3c0-3bf7-4a5b-9e6c-59360447c757",
            "LIBS:diskfont.library",
            "ede1a974-df7e-5f17-84b9-76208818b2c8",
        ),
    ],
)
def test_uuidv5(namespace: str, name: str, expected: str) -> None:
    assert call("uuidv5", namespace, name) == expected


def test_uuidv5_rejects_an_unknown_namespace() -> None:
    with pytest.raises(FunctionError) as exc:
        call("uuidv5", "isbn", "x")
    assert exc.value.arg_index == 0


def test_uuid_is_random_v4_and_unknown_during_plan() -> None:
    first, second = call("uuid"), call("uuid")
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", first)
    assert first != second
    plan = FunctionContext(base_dir=Path("."), module_dir=Path("."), plan_mode=True)
    assert isinstance(call("uuid", ctx=plan), Unknown)


def test_bcrypt_is_salted_and_verifies_with_bcrypt() -> None:
    import bcrypt

    first, second = call("bcrypt", "hunter2"), call("bcrypt", "hunter2")
    assert isinstance(first, str) and isinstance(second, str) and first != second  # a new salt each time
    assert re.fullmatch(r"\$2a\$10\$[./A-Za-z0-9]{53}", first)
    assert bcrypt.checkpw(b"hunter2", first.encode()) and not bcrypt.checkpw(b"hunter3", first.encode())
    assert str(call("bcrypt", "x", 4)).startswith("$2a$04$")
    assert str(call("bcrypt", "x", 3)).startswith("$2a$10$")  # under the minimum: the default, as Go's
    assert bcrypt.checkpw("é".encode(), str(call("bcrypt", "é", 4)).encode())


def test_bcrypt_refuses_what_the_newest_references_refuse_and_is_unknown_during_plan() -> None:
    with pytest.raises(FunctionError, match="exceeds 72 bytes") as exc:
        call("bcrypt", "x" * 73, 4)
    assert exc.value.arg_index == 0
    with pytest.raises(FunctionError, match="outside allowed range") as exc:
        call("bcrypt", "x", 32)
    assert exc.value.arg_index == 1
    planning = FunctionContext(base_dir=Path("."), module_dir=Path("."), plan_mode=True)
    assert isinstance(call("bcrypt", "x", ctx=planning), Unknown)
