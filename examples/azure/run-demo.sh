#!/usr/bin/env bash
# The Azure example against Azurite on free ports: init, plan, apply, re-plan, destroy.
# Usage: run-demo.sh [CTL]   (default: ctl on PATH). Azurite is the one `make test-servers`
# installs into tests/node_modules; it needs Node.js.
set -euo pipefail
CTL="${1:-ctl}"
cd "$(dirname "$0")"
REPO="$(cd ../.. && pwd)"
AZURITE="$REPO/tests/node_modules/.bin/azurite"
[ -x "$AZURITE" ] || { echo "Azurite is not installed: run make test-servers" >&2; exit 1; }
PY="$(dirname "$(command -v "$CTL")")/python"
[ -x "$PY" ] || PY="$(command -v python3)"

read -r BLOB QUEUE TABLE < <("$PY" -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')
WORK="$(mktemp -d -t ctl-demo-azurite.XXXXXX)"
(cd "$WORK" && exec "$AZURITE" --blobHost 127.0.0.1 --blobPort "$BLOB" --queueHost 127.0.0.1 \
  --queuePort "$QUEUE" --tableHost 127.0.0.1 --tablePort "$TABLE" --inMemoryPersistence --silent \
  --disableTelemetry --skipApiVersionCheck --loose >"$WORK/azurite.log" 2>&1) &
EMULATOR=$!
trap 'kill "$EMULATOR" 2>/dev/null || true; rm -rf "$WORK" tfplan' EXIT
"$PY" - "$BLOB" "$QUEUE" <<'PYEOF'
import socket, sys, time
for port in sys.argv[1:]:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", int(port)), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit(f"Azurite did not listen on {port}")
PYEOF
echo "Azurite listening: blob 127.0.0.1:$BLOB, queue 127.0.0.1:$QUEUE"

KEY="Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="  # Azurite's documented dev key
export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$KEY;BlobEndpoint=http://127.0.0.1:$BLOB/devstoreaccount1;QueueEndpoint=http://127.0.0.1:$QUEUE/devstoreaccount1;"
export CI="${CI:-true}"
STATE_FILES="ctl.tfstate ctl.tfstate.backup ctl.tfstate.history .ctl.tfstate.mutex .ctl"
rm -rf $STATE_FILES
echo; echo "==> ctl init";                         "$CTL" init
echo; echo "==> ctl plan --out tfplan";            "$CTL" plan --out tfplan
echo; echo "==> ctl apply tfplan";                 "$CTL" apply tfplan
echo; echo "==> ctl output";                       "$CTL" output
echo; echo "==> ctl plan --detailed-exitcode (expect no changes)"
"$CTL" plan --detailed-exitcode
echo; echo "==> ctl destroy";                      "$CTL" destroy --auto-approve
rm -rf $STATE_FILES
