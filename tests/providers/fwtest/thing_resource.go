package main

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"ctltest.local/providers/internal/store"
)

// thingResource is fwtest_thing: one JSON file per object.
type thingResource struct {
	provider *fwProvider
}

var (
	_ resource.ResourceWithConfigure    = (*thingResource)(nil)
	_ resource.ResourceWithImportState  = (*thingResource)(nil)
	_ resource.ResourceWithUpgradeState = (*thingResource)(nil)
)

func newThingResource() resource.Resource { return &thingResource{} }

func (r *thingResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_thing"
}

func (r *thingResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = thingSchema()
}

func (r *thingResource) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if p, ok := req.ProviderData.(*fwProvider); ok {
		r.provider = p
	}
}

func (r *thingResource) root() string {
	if r.provider == nil {
		return store.ResolveRoot("")
	}
	return r.provider.root
}

func (r *thingResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan thingModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.DelayMs != nil && *plan.DelayMs > 0 {
		select {
		case <-time.After(time.Duration(*plan.DelayMs) * time.Millisecond):
		case <-ctx.Done():
			resp.Diagnostics.AddError("Create interrupted", "The create was cancelled before the object was written.")
			return
		}
	}
	id := store.NewID()
	doc := thingFile{CreatedAt: time.Now().UTC().Format(time.RFC3339Nano), ThingArgs: plan.ThingArgs}
	if err := store.Write(r.root(), id, doc); err != nil {
		resp.Diagnostics.AddError("Cannot write object", err.Error())
		return
	}
	plan.ID = types.StringValue(id)
	plan.CreatedAt = types.StringValue(doc.CreatedAt)
	plan.Hash = types.StringValue(store.Hash(doc.ThingArgs))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if plan.FailAfterCreate != nil && *plan.FailAfterCreate {
		resp.Diagnostics.AddError("Create failed after writing the object",
			fmt.Sprintf("Object %s was written to %s but fail_after_create is set.", id, r.root()))
	}
}

func (r *thingResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state thingModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var doc thingFile
	found, err := store.Read(r.root(), state.ID.ValueString(), &doc)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read object", err.Error())
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	state.ThingArgs = doc.ThingArgs
	state.CreatedAt = types.StringValue(doc.CreatedAt)
	state.Hash = types.StringValue(store.Hash(doc.ThingArgs))
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *thingResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state thingModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	doc := thingFile{CreatedAt: state.CreatedAt.ValueString(), ThingArgs: plan.ThingArgs}
	if err := store.Write(r.root(), state.ID.ValueString(), doc); err != nil {
		resp.Diagnostics.AddError("Cannot write object", err.Error())
		return
	}
	plan.ID = state.ID
	plan.CreatedAt = state.CreatedAt
	plan.Hash = types.StringValue(store.Hash(doc.ThingArgs))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *thingResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state thingModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := store.Delete(r.root(), state.ID.ValueString()); err != nil {
		resp.Diagnostics.AddError("Cannot delete object", err.Error())
	}
}

// ImportState takes the id as given; Read then loads the object file.
func (r *thingResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
