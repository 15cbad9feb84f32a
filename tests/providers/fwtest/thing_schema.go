package main

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// thingSchemaVersion is 1: version 0 stored size as a string, version 1 as a number.
const thingSchemaVersion = 1

// thingSchema is fwtest_thing's schema; it touches every nesting mode the framework offers.
func thingSchema() schema.Schema {
	return schema.Schema{
		Version:     thingSchemaVersion,
		Description: "An object stored as ROOT/ID.json.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "Lower-case letters, digits and dashes; changing it replaces the object.",
				Validators:    []validator.String{namePattern{}},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"created_at": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"hash":   schema.StringAttribute{Computed: true, Description: "Digest of the stored arguments."},
			"size":   schema.Float64Attribute{Optional: true},
			"tags":   schema.MapAttribute{Optional: true, ElementType: types.StringType},
			"ports":  schema.ListAttribute{Optional: true, ElementType: types.Int64Type},
			"mode":   schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("standard")},
			"secret": schema.StringAttribute{Optional: true, Sensitive: true},
			"label": schema.StringAttribute{
				Optional:           true,
				DeprecationMessage: "label is deprecated: put the text in tags instead.",
			},
			"settings": schema.SingleNestedAttribute{
				Optional: true,
				Attributes: map[string]schema.Attribute{
					"level":   schema.Int64Attribute{Optional: true},
					"enabled": schema.BoolAttribute{Optional: true},
				},
			},
			"delay_ms":          schema.Int64Attribute{Optional: true, Description: "Sleep this long inside create."},
			"fail_after_create": schema.BoolAttribute{Optional: true, Description: "Write the object, then fail the create."},
		},
		Blocks: map[string]schema.Block{
			"rule": schema.ListNestedBlock{
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"port":     schema.Int64Attribute{Required: true},
					"protocol": schema.StringAttribute{Optional: true},
				}},
			},
			"member": schema.SetNestedBlock{
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true},
					"role": schema.StringAttribute{Optional: true},
				}},
			},
			"owner": schema.SingleNestedBlock{
				Attributes: map[string]schema.Attribute{
					"email": schema.StringAttribute{Optional: true},
				},
			},
		},
	}
}

type settingsModel struct {
	Level   *int64 `tfsdk:"level" json:"level"`
	Enabled *bool  `tfsdk:"enabled" json:"enabled"`
}

type ruleModel struct {
	Port     int64   `tfsdk:"port" json:"port"`
	Protocol *string `tfsdk:"protocol" json:"protocol"`
}

type memberModel struct {
	Name string  `tfsdk:"name" json:"name"`
	Role *string `tfsdk:"role" json:"role"`
}

type ownerModel struct {
	Email *string `tfsdk:"email" json:"email"`
}

// ThingArgs are the arguments kept in the object file; editing the file changes them (drift).
type ThingArgs struct {
	Name     *string           `tfsdk:"name" json:"name"`
	Size     *float64          `tfsdk:"size" json:"size"`
	Tags     map[string]string `tfsdk:"tags" json:"tags"`
	Ports    []int64           `tfsdk:"ports" json:"ports"`
	Mode     *string           `tfsdk:"mode" json:"mode"`
	Secret   *string           `tfsdk:"secret" json:"secret"`
	Label    *string           `tfsdk:"label" json:"label"`
	Settings *settingsModel    `tfsdk:"settings" json:"settings"`
	Rules    []ruleModel       `tfsdk:"rule" json:"rules"`
	Members  []memberModel     `tfsdk:"member" json:"members"`
	Owner    *ownerModel       `tfsdk:"owner" json:"owner"`
}

// thingModel is the whole resource: the stored arguments plus computed and behaviour-only attributes.
type thingModel struct {
	ID              types.String `tfsdk:"id"`
	CreatedAt       types.String `tfsdk:"created_at"`
	Hash            types.String `tfsdk:"hash"`
	DelayMs         *int64       `tfsdk:"delay_ms"`
	FailAfterCreate *bool        `tfsdk:"fail_after_create"`
	ThingArgs
}

// thingFile is the JSON document written to ROOT/ID.json.
type thingFile struct {
	CreatedAt string `json:"created_at"`
	ThingArgs
}

var nameRegexp = regexp.MustCompile(`^[a-z0-9-]+$`)

// namePattern reports names that would not make tidy identifiers, at the attribute's path.
type namePattern struct{}

func (namePattern) Description(context.Context) string {
	return "must match ^[a-z0-9-]+$"
}

func (n namePattern) MarkdownDescription(ctx context.Context) string { return n.Description(ctx) }

func (namePattern) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if !nameRegexp.MatchString(req.ConfigValue.ValueString()) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid name",
			"name must match ^[a-z0-9-]+$ (lower-case letters, digits and dashes), got \""+req.ConfigValue.ValueString()+"\".")
	}
}
