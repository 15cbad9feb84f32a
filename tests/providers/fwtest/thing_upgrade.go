package main

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// UpgradeState turns a version-0 state (size as a string) into version 1 (size as a number).
// It works on the raw JSON Terraform stored, as real providers do for simple renames and retypes.
func (r *thingResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: {StateUpgrader: upgradeThingV0}}
}

func upgradeThingV0(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	if req.RawState == nil {
		resp.Diagnostics.AddError("Cannot upgrade state", "Terraform sent no raw state to upgrade.")
		return
	}
	var attrs map[string]any
	if err := json.Unmarshal(req.RawState.JSON, &attrs); err != nil {
		resp.Diagnostics.AddError("Cannot upgrade state", "The version 0 state is not a JSON object: "+err.Error())
		return
	}
	if raw, ok := attrs["size"].(string); ok {
		if raw == "" {
			attrs["size"] = nil
		} else if size, err := strconv.ParseFloat(raw, 64); err == nil {
			attrs["size"] = size
		} else {
			resp.Diagnostics.AddError("Cannot upgrade state", "size "+strconv.Quote(raw)+" in the version 0 state is not a number.")
			return
		}
	}
	upgraded, err := json.Marshal(attrs)
	if err != nil {
		resp.Diagnostics.AddError("Cannot upgrade state", err.Error())
		return
	}
	resp.DynamicValue = &tfprotov6.DynamicValue{JSON: upgraded}
}
