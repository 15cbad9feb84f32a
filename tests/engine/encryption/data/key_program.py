"""An external key provider in OpenTofu's protocol (version 1), as a key service would be written.

Encrypting (``null`` on stdin), it makes a fresh random data key and stores it wrapped with a master
secret (``KEY_PROGRAM_MASTER``, hex) in ``external_data``; decrypting, it unwraps the stored one. The
first argument picks a misbehaviour for the error tests: ``hang``, ``crash``, ``garbage``,
``bad-header``, ``no-decryption-key``, ``odd-key`` (20 bytes, which AES does not take).
"""

import base64
import hashlib
import json
import os
import sys
import time


def wrap(key: bytes, nonce: bytes) -> bytes:
    pad = hashlib.sha256(bytes.fromhex(os.environ["KEY_PROGRAM_MASTER"]) + nonce).digest()
    return bytes(a ^ b for a, b in zip(key, pad[: len(key)], strict=True))


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    if mode == "bad-header":
        print(json.dumps({"magic": "Some-Other-Protocol", "version": 1}), flush=True)
        return 0
    print(json.dumps({"magic": "OpenTofu-External-Key-Provider", "version": 1}), flush=True)
    given = json.loads(sys.stdin.read())
    if mode == "hang":
        time.sleep(3600)
    if mode == "crash":
        sys.stderr.write("key service unreachable: connection refused\n")
        return 3
    if mode == "garbage":
        sys.stdout.write("<html>502 Bad Gateway</html>")
        return 0
    key, nonce = os.urandom(20 if mode == "odd-key" else 32), os.urandom(16)
    keys = {"encryption_key": base64.b64encode(key).decode()}
    if given is not None and mode != "no-decryption-key":
        stored = given["external_data"]
        wrapped, old_nonce = base64.b64decode(stored["wrapped"]), base64.b64decode(stored["nonce"])
        keys["decryption_key"] = base64.b64encode(wrap(wrapped, old_nonce)).decode()
    meta = {"wrapped": base64.b64encode(wrap(key, nonce)).decode(), "nonce": base64.b64encode(nonce).decode()}
    sys.stdout.write(json.dumps({"keys": keys, "meta": {"external_data": meta}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
