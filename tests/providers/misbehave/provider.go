package main

import (
	"context"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type misProvider struct{}

func newProvider() provider.Provider { return &misProvider{} }

func (p *misProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "misbehave"
	resp.Version = "1.0.0"
}

func (p *misProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{
		Attributes: map[string]pschema.Attribute{
			"token": pschema.StringAttribute{Optional: true, Sensitive: true},
			"trick": pschema.StringAttribute{Optional: true},
			"label": pschema.StringAttribute{Optional: true},
		},
	}
}

func (p *misProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *misProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return &thing{} }}
}

func (p *misProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

type thing struct{}

type thingModel struct {
	ID     types.String `tfsdk:"id"`
	Name   types.String `tfsdk:"name"`
	Trick  types.String `tfsdk:"trick"`
	Secret types.String `tfsdk:"secret"`
}

func (t *thing) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_thing"
}

func (t *thing) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id":     schema.StringAttribute{Computed: true},
			"name":   schema.StringAttribute{Optional: true},
			"trick":  schema.StringAttribute{Optional: true},
			"secret": schema.StringAttribute{Optional: true, Sensitive: true},
		},
	}
}

func (t *thing) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m thingModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Trick.ValueString() == "slow" {
		select {
		case <-time.After(time.Minute):
		case <-ctx.Done():
			note("stopped")
			resp.Diagnostics.AddError("Create interrupted", "The provider was asked to stop.")
			return
		}
	}
	if m.Trick.ValueString() == "stubborn" {
		time.Sleep(time.Minute)
	}
	m.ID = types.StringValue("id-" + strings.ReplaceAll(m.Name.ValueString(), " ", "-"))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (t *thing) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m thingModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (t *thing) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m, prior thingModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	m.ID = prior.ID
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (t *thing) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
