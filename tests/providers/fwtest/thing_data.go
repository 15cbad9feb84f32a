package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"ctltest.local/providers/internal/store"
)

// thingDataSource is data.fwtest_thing: reads an object file by id, or finds it by name.
type thingDataSource struct {
	provider *fwProvider
}

type thingDataModel struct {
	ID        types.String      `tfsdk:"id"`
	Name      types.String      `tfsdk:"name"`
	Size      *float64          `tfsdk:"size"`
	Tags      map[string]string `tfsdk:"tags"`
	Mode      *string           `tfsdk:"mode"`
	Secret    *string           `tfsdk:"secret"`
	CreatedAt types.String      `tfsdk:"created_at"`
	Hash      types.String      `tfsdk:"hash"`
}

var (
	_ datasource.DataSourceWithConfigure      = (*thingDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*thingDataSource)(nil)
)

func newThingDataSource() datasource.DataSource { return &thingDataSource{} }

func (d *thingDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_thing"
}

func (d *thingDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Reads one object file; give id or name.",
		Attributes: map[string]schema.Attribute{
			"id":         schema.StringAttribute{Optional: true, Computed: true},
			"name":       schema.StringAttribute{Optional: true, Computed: true},
			"size":       schema.Float64Attribute{Computed: true},
			"tags":       schema.MapAttribute{Computed: true, ElementType: types.StringType},
			"mode":       schema.StringAttribute{Computed: true},
			"secret":     schema.StringAttribute{Computed: true, Sensitive: true},
			"created_at": schema.StringAttribute{Computed: true},
			"hash":       schema.StringAttribute{Computed: true},
		},
	}
}

func (d *thingDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if p, ok := req.ProviderData.(*fwProvider); ok {
		d.provider = p
	}
}

// ValidateConfig insists on exactly one of id and name, reported at the offending path.
func (d *thingDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var cfg thingDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if cfg.ID.IsNull() && cfg.Name.IsNull() {
		resp.Diagnostics.AddError("Missing lookup key", "Set id or name to say which object to read.")
	}
	if !cfg.ID.IsNull() && !cfg.Name.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Conflicting lookup keys", "Set id or name, not both.")
	}
}

func (d *thingDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg thingDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	root := store.ResolveRoot("")
	if d.provider != nil {
		root = d.provider.root
	}
	id := cfg.ID.ValueString()
	if cfg.ID.IsNull() {
		found, err := store.FindByName(root, cfg.Name.ValueString())
		if err != nil {
			resp.Diagnostics.AddError("Cannot search objects", err.Error())
			return
		}
		if found == "" {
			resp.Diagnostics.AddAttributeError(path.Root("name"), "No such object",
				"No object named "+cfg.Name.ValueString()+" in "+root+".")
			return
		}
		id = found
	}
	var doc thingFile
	found, err := store.Read(root, id, &doc)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read object", err.Error())
		return
	}
	if !found {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "No such object", "No object "+id+" in "+root+".")
		return
	}
	out := thingDataModel{
		ID:        types.StringValue(id),
		Name:      types.StringPointerValue(doc.Name),
		Size:      doc.Size,
		Tags:      doc.Tags,
		Mode:      doc.Mode,
		Secret:    doc.Secret,
		CreatedAt: types.StringValue(doc.CreatedAt),
		Hash:      types.StringValue(store.Hash(doc.ThingArgs)),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
