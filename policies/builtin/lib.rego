# METADATA
# title: Helpers shared by ctl's built-in policy pack
# description: Reads the plan in Terraform's JSON shape (ctl show --json, terraform show -json).
package ctl.lib

import rego.v1

# ctl evaluates the pack on a view of the plan with indexes (policies/pack_view.py): when
# input.ctl_indexed is true, the helpers below read the indexes instead of scanning the plan; a
# plain plan (terraform show -json) has none and is scanned, with the same results. The guards
# test this flag, not the index itself: rego-cpp copies the value of an expression it tests.
indexed if input.ctl_indexed == true

# Rules visit positions in input.resource_changes and look each resource up
# (rc := input.resource_changes[i]) rather than collecting resources: rego-cpp copies every
# element it puts in a collection, and building a set or object grows with the square of its size.
# For the same reason each module collects its findings in an array rule, findings, which is what
# ctl queries; its deny is the same findings as a set (for tests and conftest-style use).

# Positions of the resources of type t.
of_type(t) := [i | some i; input.resource_changes[i].type == t]

# Positions of the resources of type t that the plan creates or updates (see is_changing).
changing(t) := object.get(input.ctl_index.changing, t, []) if indexed

changing(t) := positions if {
	not indexed
	positions := [i | some i in of_type(t); is_changing(input.resource_changes[i])]
}

# Positions of all the resources the plan creates or updates.
all_changing := [i | some positions in input.ctl_index.changing; some i in positions] if indexed

all_changing := positions if {
	not indexed
	positions := [i | some i; rc := input.resource_changes[i]; is_changing(rc)]
}

# Positions of the resources the plan destroys (see is_destroyed).
destroyed := input.ctl_index.destroyed if indexed

destroyed := positions if {
	not indexed
	positions := [i | some i; rc := input.resource_changes[i]; is_destroyed(rc)]
}

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

# The address of a resource without its instance key: aws_s3_bucket.logs[0] -> aws_s3_bucket.logs
resource_address(rc) := concat(".", [rc.module_address, rc.type, rc.name]) if rc.module_address

resource_address(rc) := concat(".", [rc.type, rc.name]) if not rc.module_address

# Keys that tie a bucket to the resources that configure it (public access block, encryption,
# versioning): its name when known and, when a companion's bucket name is only known after apply,
# the resource name (aws_s3_bucket.logs and aws_s3_bucket_versioning.logs).
bucket_keys(rc) := named | {concat("", ["name:", rc.name])} if {
	named := {concat("", ["bucket:", b]) | b := rc.change.after.bucket; is_string(b)}
}

# The key of a resource that configures a bucket (see bucket_keys).
companion_key(c) := concat("", ["bucket:", c.change.after.bucket]) if is_string(c.change.after.bucket)

companion_key(c) := concat("", ["name:", c.name]) if not is_string(c.change.after.bucket)

# Positions of the resources of type t that exist after the apply and configure the bucket rc
# (a key of each is one of the bucket's keys). ctl's view lists them on the bucket
# (ctl_companions, joined in Python); a plain plan is scanned.
companions(rc, t) := object.get(object.get(rc, "ctl_companions", {}), t, []) if indexed

companions(rc, t) := positions if {
	not indexed
	keys := bucket_keys(rc)
	positions := [j |
		some j in of_type(t)
		c := input.resource_changes[j]
		is_planned(c)
		companion_key(c) in keys
	]
}

# Tags of a resource after the apply (tags_all includes provider default_tags).
tags(after) := object.union(object_or_empty(object.get(after, "tags_all", {})), object_or_empty(object.get(after, "tags", {})))

object_or_empty(x) := x if is_object(x)

object_or_empty(x) := {} if not is_object(x)

# An IAM-style policy document as an object: the attribute holds JSON text. ctl's view hands
# over the documents it could parse exactly as {"ctl_parsed": document} (json.unmarshal is slow in
# rego-cpp); any other text is unmarshalled here. An empty text is no policy at all (the AWS
# provider writes "" for a queue or topic without one): it has no statements.
policy_statements(text) := statements if {
	is_string(text)
	trim_space(text) != ""
	doc := json.unmarshal(text)
	statements := _as_list(object.get(doc, "Statement", []))
}

policy_statements(parsed) := statements if {
	indexed
	doc := parsed.ctl_parsed
	statements := _as_list(object.get(doc, "Statement", []))
}

_as_list(x) := x if is_array(x)

_as_list(x) := [x] if not is_array(x)

as_list(x) := _as_list(x)
