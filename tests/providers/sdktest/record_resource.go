package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"ctltest.local/providers/internal/store"
)

// recordResource is sdktest_record: one JSON file per object, schema version 1.
func recordResource() *schema.Resource {
	return &schema.Resource{
		Description:   "An object stored as ROOT/ID.json.",
		Schema:        recordSchema(schema.TypeFloat),
		SchemaVersion: 1,
		StateUpgraders: []schema.StateUpgrader{{
			Version: 0,
			Type:    (&schema.Resource{Schema: recordSchema(schema.TypeString)}).CoreConfigSchema().ImpliedType(),
			Upgrade: upgradeRecordV0,
		}},
		CreateContext: createRecord,
		ReadContext:   readRecord,
		UpdateContext: updateRecord,
		DeleteContext: deleteRecord,
		Importer:      &schema.ResourceImporter{StateContext: schema.ImportStatePassthroughContext},
	}
}

// storedArgs collects the arguments that go into the object file.
func storedArgs(d *schema.ResourceData) map[string]any {
	doc := make(map[string]any, len(storedKeys)+1)
	for _, key := range storedKeys {
		value := d.Get(key)
		if set, ok := value.(*schema.Set); ok {
			value = set.List()
		}
		doc[key] = value
	}
	return doc
}

func createRecord(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	root := meta.(*providerMeta).root
	if delay := d.Get("delay_ms").(int); delay > 0 {
		select {
		case <-time.After(time.Duration(delay) * time.Millisecond):
		case <-ctx.Done():
			return diag.Errorf("create interrupted before the object was written")
		}
	}
	id := store.NewID()
	doc := storedArgs(d)
	hash := store.Hash(doc)
	createdAt := time.Now().UTC().Format(time.RFC3339Nano)
	doc["created_at"] = createdAt
	if err := store.Write(root, id, doc); err != nil {
		return diag.FromErr(err)
	}
	d.SetId(id)
	_ = d.Set("created_at", createdAt)
	_ = d.Set("hash", hash)
	if d.Get("fail_after_create").(bool) {
		return diag.Errorf("create failed after writing the object: object %s was written to %s but fail_after_create is set", id, root)
	}
	return nil
}

func readRecord(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	var doc map[string]any
	found, err := store.Read(meta.(*providerMeta).root, d.Id(), &doc)
	if err != nil {
		return diag.FromErr(err)
	}
	if !found {
		d.SetId("")
		return nil
	}
	for _, key := range storedKeys {
		if err := d.Set(key, doc[key]); err != nil {
			return diag.Errorf("object %s: field %s: %s", d.Id(), key, err)
		}
	}
	createdAt, _ := doc["created_at"].(string)
	_ = d.Set("created_at", createdAt)
	_ = d.Set("hash", store.Hash(storedArgs(d)))
	return nil
}

func updateRecord(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	doc := storedArgs(d)
	hash := store.Hash(doc)
	doc["created_at"] = d.Get("created_at").(string)
	if err := store.Write(meta.(*providerMeta).root, d.Id(), doc); err != nil {
		return diag.FromErr(err)
	}
	_ = d.Set("hash", hash)
	return nil
}

func deleteRecord(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	return diag.FromErr(store.Delete(meta.(*providerMeta).root, d.Id()))
}

// upgradeRecordV0 turns size from a string (version 0) into a number (version 1).
func upgradeRecordV0(_ context.Context, raw map[string]any, _ any) (map[string]any, error) {
	text, ok := raw["size"].(string)
	if !ok {
		return raw, nil
	}
	if text == "" {
		delete(raw, "size")
		return raw, nil
	}
	size, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, fmt.Errorf("size %q in the version 0 state is not a number", text)
	}
	raw["size"] = size
	return raw, nil
}
