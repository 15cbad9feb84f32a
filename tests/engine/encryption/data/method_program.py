"""An external encryption method in OpenTofu's protocol (version 1): AES-GCM done by the program.

``--encrypt`` or ``--decrypt``. The key is the one OpenTofu (or ctl) passes from the method's key
provider, or, when the method has none, ``METHOD_PROGRAM_KEY`` (hex) from the environment. A wrong key
is refused by the tag, with a message on stderr and exit status 1.
"""

import base64
import json
import os
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def main() -> int:
    print(json.dumps({"magic": "OpenTofu-External-Encryption-Method", "version": 1}), flush=True)
    given = json.loads(sys.stdin.read())
    key = base64.b64decode(given["key"]) if "key" in given else bytes.fromhex(os.environ["METHOD_PROGRAM_KEY"])
    payload = base64.b64decode(given["payload"])
    if sys.argv[1] == "--encrypt":
        nonce = os.urandom(12)
        out = nonce + AESGCM(key).encrypt(nonce, payload, b"method-program")
    else:
        try:
            out = AESGCM(key).decrypt(payload[:12], payload[12:], b"method-program")
        except InvalidTag:
            sys.stderr.write("method program: authentication failed (wrong key?)\n")
            return 1
    sys.stdout.write(json.dumps({"payload": base64.b64encode(out).decode()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
