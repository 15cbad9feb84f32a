# METADATA
# title: Required tags are present
# description: >-
#   Every taggable resource (one with a tags or labels attribute) carries each tag listed in
#   data.ctl.required_tags (none by default; set the list in policies/policy-set.yaml under data).
# custom:
#   id: CTL-TAGS-001
package ctl.tags.required

import data.ctl.lib
import rego.v1

default required := []

required := data.ctl.required_tags

present(after) := lib.tags(after) if "tags" in object.keys(after)

present(after) := labels if {
	not "tags" in object.keys(after)
	"labels" in object.keys(after)
	labels := lib.object_or_empty(after.labels)
}

# ctl queries the findings array; deny is the same findings as a set (see lib.rego).
deny contains finding if some finding in findings

findings := [{"msg": msg, "address": rc.address} |
	count(required) > 0
	some i in lib.all_changing
	rc := input.resource_changes[i]
	have := present(rc.change.after)
	missing := [t | some t in required; not _has(have, t)]
	count(missing) > 0
	msg := concat("", [rc.address, ": missing required tags: ", concat(", ", missing)])
]

_has(tags, name) if {
	value := tags[name]
	value != ""
	value != null
}
