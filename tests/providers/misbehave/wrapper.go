package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// wrapper passes every call to the framework's server and then breaks the
// answer as the configuration's "trick" asks.
type wrapper struct {
	tfprotov6.ProviderServer
}

var objectType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"id": tftypes.String, "name": tftypes.String, "trick": tftypes.String, "secret": tftypes.String,
}}

// fields decodes an object of misbehave_thing into its attribute values.
func fields(dv *tfprotov6.DynamicValue) map[string]tftypes.Value {
	if dv == nil {
		return nil
	}
	v, err := dv.Unmarshal(objectType)
	if err != nil || v.IsNull() || !v.IsKnown() {
		return nil
	}
	out := map[string]tftypes.Value{}
	if err := v.As(&out); err != nil {
		return nil
	}
	return out
}

func text(m map[string]tftypes.Value, name string) string {
	var s string
	if v, ok := m[name]; ok && v.IsKnown() && !v.IsNull() {
		_ = v.As(&s)
	}
	return s
}

func encode(m map[string]tftypes.Value) *tfprotov6.DynamicValue {
	dv, err := tfprotov6.NewDynamicValue(objectType, tftypes.NewValue(objectType, m))
	if err != nil {
		panic(err)
	}
	return &dv
}

func (w *wrapper) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := w.ProviderServer.ValidateResourceConfig(ctx, req)
	if err != nil {
		return resp, err
	}
	cfg := fields(req.Config)
	trick := text(cfg, "trick")
	switch {
	case strings.HasPrefix(trick, "diagnostics:"):
		n, _ := strconv.Atoi(strings.TrimPrefix(trick, "diagnostics:"))
		for i := 0; i < n; i++ {
			resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
				Severity:  tfprotov6.DiagnosticSeverityError,
				Summary:   "Bad name",
				Detail:    fmt.Sprintf("Problem number %d with this name.", i),
				Attribute: tftypes.NewAttributePath().WithAttributeName("name"),
			})
		}
	case strings.HasPrefix(trick, "warnings:"):
		n, _ := strconv.Atoi(strings.TrimPrefix(trick, "warnings:"))
		for i := 0; i < n; i++ {
			resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
				Severity:  tfprotov6.DiagnosticSeverityWarning,
				Summary:   fmt.Sprintf("Odd name %d", i),
				Detail:    fmt.Sprintf("Remark number %d about this name.", i),
				Attribute: tftypes.NewAttributePath().WithAttributeName("name"),
			})
		}
	case trick == "warn_secret":
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
			Severity:  tfprotov6.DiagnosticSeverityWarning,
			Summary:   "Weak secret\x1b]0;pwned\x07",
			Detail:    "The secret " + text(cfg, "secret") + " is weak.\x1b[2J\x1b[31mred\x1b[0m",
			Attribute: tftypes.NewAttributePath().WithAttributeName("secret"),
		})
	case trick == "error_escape":
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
			Severity:  tfprotov6.DiagnosticSeverityError,
			Summary:   "Refused\x1b]0;pwned\x07",
			Detail:    "This name is refused.\x1b[2J",
			Attribute: tftypes.NewAttributePath().WithAttributeName("name"),
		})
	}
	return resp, nil
}

var providerType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"token": tftypes.String, "trick": tftypes.String, "label": tftypes.String,
}}

// ConfigureProvider warns or fails quoting the sensitive "token" and the
// "label" (which a sensitive variable may set), with
// terminal escapes, when the provider configuration's "trick" asks.
func (w *wrapper) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	resp, err := w.ProviderServer.ConfigureProvider(ctx, req)
	if err != nil || resp == nil || req.Config == nil {
		return resp, err
	}
	v, err := req.Config.Unmarshal(providerType)
	if err != nil || !v.IsKnown() || v.IsNull() {
		return resp, nil
	}
	cfg := map[string]tftypes.Value{}
	if v.As(&cfg) != nil {
		return resp, nil
	}
	severity := tfprotov6.DiagnosticSeverityWarning
	switch text(cfg, "trick") {
	case "warn_token":
	case "refuse_token":
		severity = tfprotov6.DiagnosticSeverityError
	default:
		return resp, nil
	}
	resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
		Severity:  severity,
		Summary:   "Weak token\x1b]0;pwned\x07",
		Detail:    "The token " + text(cfg, "token") + " of " + text(cfg, "label") + " is weak.\x1b[2J",
		Attribute: tftypes.NewAttributePath().WithAttributeName("token"),
	})
	return resp, nil
}

// note appends a line to the file MISBEHAVE_EVENTS names, when it names one.
func note(event string) {
	if path := os.Getenv("MISBEHAVE_EVENTS"); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_, _ = f.WriteString(event + "\n")
			_ = f.Close()
		}
	}
}

func (w *wrapper) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if text(fields(req.Config), "trick") == "slow_plan" {
		note("planning")
		select {
		case <-time.After(time.Minute):
		case <-ctx.Done():
			note("stopped")
			return &tfprotov6.PlanResourceChangeResponse{Diagnostics: []*tfprotov6.Diagnostic{{
				Severity: tfprotov6.DiagnosticSeverityError,
				Summary:  "Plan interrupted",
				Detail:   "The provider was asked to stop.",
			}}}, nil
		}
	}
	resp, err := w.ProviderServer.PlanResourceChange(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	planned := fields(resp.PlannedState)
	if planned != nil && text(planned, "trick") == "bad_plan" {
		planned["name"] = tftypes.NewValue(tftypes.String, text(planned, "name")+"-planned")
		resp.PlannedState = encode(planned)
	}
	return resp, nil
}

func (w *wrapper) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	planned := fields(req.PlannedState)
	prior := fields(req.PriorState)
	trick := text(planned, "trick")
	if prior == nil && planned != nil {
		switch trick {
		case "exit_in_create":
			fmt.Fprintln(os.Stderr, "misbehave: exiting in the middle of a create")
			os.Exit(3)
		case "panic_in_create":
			panic("misbehave: a panic in the middle of a create")
		}
	}
	if trick == "slow" || trick == "stubborn" {
		note("creating")
	}
	resp, err := w.ProviderServer.ApplyResourceChange(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	state := fields(resp.NewState)
	if state == nil {
		return resp, nil
	}
	switch trick {
	case "apply_warn_secret", "apply_error_secret":
		severity := tfprotov6.DiagnosticSeverityWarning
		if trick == "apply_error_secret" {
			severity = tfprotov6.DiagnosticSeverityError
		}
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
			Severity:  severity,
			Summary:   "Applied a weak secret\x1b]0;pwned\x07",
			Detail:    "The secret " + text(state, "secret") + " is weak.\x1b[2J",
			Attribute: tftypes.NewAttributePath().WithAttributeName("secret"),
		})
	case "unknown_after_apply":
		state["id"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
		resp.NewState = encode(state)
	case "inconsistent":
		state["name"] = tftypes.NewValue(tftypes.String, text(state, "name")+"-changed")
		resp.NewState = encode(state)
	}
	return resp, nil
}
