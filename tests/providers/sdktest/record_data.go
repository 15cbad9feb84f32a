package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"ctltest.local/providers/internal/store"
)

// recordDataSource is data.sdktest_record: reads an object file by id, or finds it by name.
func recordDataSource() *schema.Resource {
	return &schema.Resource{
		Description: "Reads one object file; give id or name.",
		Schema: map[string]*schema.Schema{
			"id":         {Type: schema.TypeString, Optional: true, Computed: true, ExactlyOneOf: []string{"id", "name"}},
			"name":       {Type: schema.TypeString, Optional: true, Computed: true, ExactlyOneOf: []string{"id", "name"}},
			"size":       {Type: schema.TypeFloat, Computed: true},
			"tags":       {Type: schema.TypeMap, Computed: true, Elem: &schema.Schema{Type: schema.TypeString}},
			"mode":       {Type: schema.TypeString, Computed: true},
			"secret":     {Type: schema.TypeString, Computed: true, Sensitive: true},
			"created_at": {Type: schema.TypeString, Computed: true},
		},
		ReadContext: readRecordData,
	}
}

func readRecordData(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	root := meta.(*providerMeta).root
	id := d.Get("id").(string)
	if id == "" {
		name := d.Get("name").(string)
		found, err := store.FindByName(root, name)
		if err != nil {
			return diag.FromErr(err)
		}
		if found == "" {
			return diag.Errorf("no object named %s in %s", name, root)
		}
		id = found
	}
	var doc map[string]any
	found, err := store.Read(root, id, &doc)
	if err != nil {
		return diag.FromErr(err)
	}
	if !found {
		return diag.Errorf("no object %s in %s", id, root)
	}
	d.SetId(id)
	for _, key := range []string{"name", "size", "tags", "mode", "secret", "created_at"} {
		if err := d.Set(key, doc[key]); err != nil {
			return diag.Errorf("object %s: field %s: %s", id, key, err)
		}
	}
	return nil
}
