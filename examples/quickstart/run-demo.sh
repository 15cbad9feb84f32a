#!/usr/bin/env bash
# The main job on the embedded default: init, plan, apply, output — then a no-op re-plan.
set -euo pipefail
CTL="${1:-ctl}"
cd "$(dirname "$0")"
rm -rf out ctl.tfstate ctl.tfstate.backup .ctl
export CI="${CI:-true}"
echo "==> ctl init";                         "$CTL" init
echo; echo "==> ctl validate";               "$CTL" validate
echo; echo "==> ctl plan --out tfplan";      "$CTL" plan --out tfplan
echo; echo "==> ctl apply tfplan";           "$CTL" apply tfplan
echo; echo "==> ctl output";                 "$CTL" output
echo; echo "==> ctl plan --detailed-exitcode (expect no changes)"
"$CTL" plan --detailed-exitcode
echo; echo "==> files written"; ls out
rm -f tfplan
