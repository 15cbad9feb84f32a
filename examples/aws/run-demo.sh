#!/usr/bin/env bash
# The AWS example against a local moto server started here on a free port (and stopped on exit):
# init, plan, apply, a no-op re-plan, then destroy. Usage: run-demo.sh [CTL]   (`make demo-aws`)
set -euo pipefail
CTL="${1:-ctl}"
cd "$(dirname "$0")"
BIN="$(dirname "$(command -v "$CTL")")"
PYTHON="$BIN/python"; [ -x "$PYTHON" ] || PYTHON="$(command -v python3)"
MOTO="$BIN/moto_server"; [ -x "$MOTO" ] || MOTO="$(command -v moto_server || true)"
if [ -z "$MOTO" ]; then
  echo "moto_server not found: install the test extra (make test-servers)" >&2
  exit 1
fi

PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
LOG="$(mktemp -t ctl-moto.XXXXXX)"
"$MOTO" -H 127.0.0.1 -p "$PORT" >"$LOG" 2>&1 &
MOTO_PID=$!
cleanup() { kill "$MOTO_PID" 2>/dev/null || true; wait "$MOTO_PID" 2>/dev/null || true; rm -f "$LOG" tfplan; }
trap cleanup EXIT

# moto needs a moment to listen; give up after 30 s with its log.
"$PYTHON" - "$PORT" "$LOG" <<'PY'
import sys, time, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/moto-api/data.json"
deadline = time.monotonic() + 30
while True:
    try:
        urllib.request.urlopen(url, timeout=2).read()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("moto did not start:\n" + open(sys.argv[2]).read()[-2000:])
        time.sleep(0.2)
PY

export AWS_ENDPOINT_URL="http://127.0.0.1:$PORT"
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-east-1
export CI="${CI:-true}"
rm -rf ctl.tfstate ctl.tfstate.backup ctl.tfstate.history .ctl .ctl.tfstate.mutex

echo "==> moto server on $AWS_ENDPOINT_URL"
echo; echo "==> ctl init";                     "$CTL" init
echo; echo "==> ctl plan --out tfplan";        "$CTL" plan --out tfplan
echo; echo "==> ctl apply tfplan";             "$CTL" apply tfplan
echo; echo "==> ctl plan --detailed-exitcode (expect no changes)"
"$CTL" plan --detailed-exitcode
echo; echo "==> ctl destroy";                  "$CTL" destroy --auto-approve
rm -rf ctl.tfstate ctl.tfstate.backup ctl.tfstate.history .ctl .ctl.tfstate.mutex
