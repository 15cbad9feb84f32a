package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"ctltest.local/providers/internal/store"
)

// fwProvider holds the resolved root directory once Configure ran.
type fwProvider struct {
	root string
}

type providerModel struct {
	Root types.String `tfsdk:"root"`
}

var (
	_ provider.ProviderWithFunctions      = (*fwProvider)(nil)
	_ provider.ProviderWithValidateConfig = (*fwProvider)(nil)
)

func newProvider() provider.Provider { return &fwProvider{} }

func (p *fwProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "fwtest"
	resp.Version = version
}

func (p *fwProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Keeps objects as JSON files in a directory.",
		Attributes: map[string]schema.Attribute{
			"root": schema.StringAttribute{
				Optional:    true,
				Description: "Directory holding the object files; defaults to $" + store.RootEnv + ".",
			},
		},
	}
}

// ValidateConfig rejects an explicitly empty root so the diagnostic points at the attribute.
func (p *fwProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !cfg.Root.IsNull() && !cfg.Root.IsUnknown() && cfg.Root.ValueString() == "" {
		resp.Diagnostics.AddAttributeError(path.Root("root"), "Empty root directory",
			"root must name a directory; leave it out to use $"+store.RootEnv+".")
	}
}

func (p *fwProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p.root = store.ResolveRoot(cfg.Root.ValueString())
	if p.root == "" {
		resp.Diagnostics.AddAttributeError(path.Root("root"), "No root directory",
			"Set root in the provider block or the "+store.RootEnv+" environment variable.")
		return
	}
	resp.ResourceData = p
	resp.DataSourceData = p
}

func (p *fwProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newThingResource}
}

func (p *fwProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{newThingDataSource}
}

func (p *fwProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{newReverseFunction}
}
