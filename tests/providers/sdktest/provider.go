package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/validation"

	"ctltest.local/providers/internal/store"
)

// providerMeta is what Configure hands every resource and data source.
type providerMeta struct {
	root string
}

func newProvider() *schema.Provider {
	return &schema.Provider{
		Schema: map[string]*schema.Schema{
			"root": {
				Type:             schema.TypeString,
				Required:         true,
				DefaultFunc:      schema.EnvDefaultFunc(store.RootEnv, nil),
				ValidateDiagFunc: validation.ToDiagFunc(validation.StringIsNotEmpty),
				Description:      "Directory holding the object files; defaults to $" + store.RootEnv + ".",
			},
		},
		ResourcesMap:         map[string]*schema.Resource{"sdktest_record": recordResource()},
		DataSourcesMap:       map[string]*schema.Resource{"sdktest_record": recordDataSource()},
		ConfigureContextFunc: configure,
	}
}

func configure(_ context.Context, d *schema.ResourceData) (any, diag.Diagnostics) {
	root := store.ResolveRoot(d.Get("root").(string))
	if root == "" {
		return nil, diag.Diagnostics{{
			Severity: diag.Error,
			Summary:  "No root directory",
			Detail:   "Set root in the provider block or the " + store.RootEnv + " environment variable.",
		}}
	}
	return &providerMeta{root: root}, nil
}
