package main

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/validation"
)

// storedKeys are the arguments kept in the object file (editing one there is drift).
var storedKeys = []string{"name", "size", "tags", "ports", "mode", "secret", "label", "rule", "member", "owner"}

// recordSchema is sdktest_record's schema; sizeType is TypeString for version 0, TypeFloat for version 1.
func recordSchema(sizeType schema.ValueType) map[string]*schema.Schema {
	return map[string]*schema.Schema{
		"name": {
			Type:     schema.TypeString,
			Required: true,
			ForceNew: true,
			ValidateDiagFunc: validation.ToDiagFunc(validation.StringMatch(regexp.MustCompile(`^[a-z0-9-]+$`),
				"name must match ^[a-z0-9-]+$ (lower-case letters, digits and dashes)")),
		},
		"size":   {Type: sizeType, Optional: true},
		"tags":   {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"ports":  {Type: schema.TypeList, Optional: true, Elem: &schema.Schema{Type: schema.TypeInt}},
		"mode":   {Type: schema.TypeString, Optional: true, Default: "standard"},
		"secret": {Type: schema.TypeString, Optional: true, Sensitive: true},
		"label": {
			Type:       schema.TypeString,
			Optional:   true,
			Deprecated: "label is deprecated: put the text in tags instead.",
		},
		"created_at": {Type: schema.TypeString, Computed: true},
		"hash":       {Type: schema.TypeString, Computed: true, Description: "Digest of the stored arguments."},
		"rule": {
			Type:     schema.TypeList,
			Optional: true,
			Elem: &schema.Resource{Schema: map[string]*schema.Schema{
				"port":     {Type: schema.TypeInt, Required: true},
				"protocol": {Type: schema.TypeString, Optional: true},
			}},
		},
		"member": {
			Type:     schema.TypeSet,
			Optional: true,
			Elem: &schema.Resource{Schema: map[string]*schema.Schema{
				"name": {Type: schema.TypeString, Required: true},
				"role": {Type: schema.TypeString, Optional: true},
			}},
		},
		"owner": {
			Type:     schema.TypeList,
			Optional: true,
			MaxItems: 1,
			Elem: &schema.Resource{Schema: map[string]*schema.Schema{
				"email": {Type: schema.TypeString, Optional: true},
			}},
		},
		"delay_ms":          {Type: schema.TypeInt, Optional: true, Description: "Sleep this long inside create."},
		"fail_after_create": {Type: schema.TypeBool, Optional: true, Description: "Write the object, then fail the create."},
	}
}
