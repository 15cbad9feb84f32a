# METADATA
# title: Helpers shared by ctl's built-in policy pack
# description: Reads the plan in Terraform's JSON shape (ctl show --json, terraform show -json).
package ctl.lib

import rego.v1

# Indexes into input.resource_changes of the resources of type t. When ctl evaluates the pack it
# adds input.ctl_index (type -> indexes) so that a rule visits only the resources it is about; a
# plain plan (terraform show -json) has none and is scanned.
of_type(t) := input.ctl_index[t] if input.ctl_index

of_type(t) := [i | some i; input.resource_changes[i].type == t] if not input.ctl_index

# A managed resource the plan creates or updates (including both halves of a replacement).
is_changing(rc) if {
	not rc.mode == "data"
	is_object(rc.change.after)
	some action in rc.change.actions
	action in {"create", "update"}
}

# A managed resource that exists after the apply: created, updated, replaced or unchanged.
is_planned(rc) if {
	not rc.mode == "data"
	is_object(rc.change.after)
}

# A managed resource the plan destroys (alone or as the first half of a replacement).
is_destroyed(rc) if {
	not rc.mode == "data"
	"delete" in rc.change.actions
}

# The resources of type t that the plan creates or updates, and those that exist after it.
changing_type(t) := [rc | some i in of_type(t); rc := input.resource_changes[i]; is_changing(rc)]

planned_type(t) := [rc | some i in of_type(t); rc := input.resource_changes[i]; is_planned(rc)]

# All managed resources the plan creates or updates (a scan of the whole plan).
changing := [rc | some rc in input.resource_changes; is_changing(rc)]

# All managed resources the plan destroys (input.ctl_index["ctl:delete"] lists them when present).
destroying := [input.resource_changes[i] | some i in input.ctl_index["ctl:delete"]] if input.ctl_index

destroying := [rc | some rc in input.resource_changes; is_destroyed(rc)] if not input.ctl_index

# The address of a resource without its instance key: aws_s3_bucket.logs[0] -> aws_s3_bucket.logs
resource_address(rc) := concat(".", [rc.module_address, rc.type, rc.name]) if rc.module_address

resource_address(rc) := concat(".", [rc.type, rc.name]) if not rc.module_address

# Keys that tie a bucket to the resources that configure it (public access block, encryption,
# versioning): its name when known and, when a companion's bucket name is only known after apply,
# the resource name (aws_s3_bucket.logs and aws_s3_bucket_versioning.logs).
bucket_keys(rc) := named | {concat("", ["name:", rc.name])} if {
	named := {concat("", ["bucket:", b]) | b := rc.change.after.bucket; is_string(b)}
}

# The keys of the resources of type t that configure buckets and exist after the apply. A rule
# keeps them in a rule of its own (computed once) and tests a bucket with
# some k in lib.bucket_keys(rc); that_rule[k]
companion_keys(t) := {k | some c in planned_type(t); k := companion_key(c)}

# The key of a resource that configures a bucket (see bucket_keys).
companion_key(c) := concat("", ["bucket:", c.change.after.bucket]) if is_string(c.change.after.bucket)

companion_key(c) := concat("", ["name:", c.name]) if not is_string(c.change.after.bucket)

# Tags of a resource after the apply (tags_all includes provider default_tags).
tags(after) := object.union(object_or_empty(object.get(after, "tags_all", {})), object_or_empty(object.get(after, "tags", {})))

object_or_empty(x) := x if is_object(x)

object_or_empty(x) := {} if not is_object(x)

# An IAM-style policy document as an object: the attribute holds JSON text.
policy_statements(text) := statements if {
	is_string(text)
	doc := json.unmarshal(text)
	statements := _as_list(object.get(doc, "Statement", []))
}

_as_list(x) := x if is_array(x)

_as_list(x) := [x] if not is_array(x)

as_list(x) := _as_list(x)
