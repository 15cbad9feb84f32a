package main

import rego.v1

deny contains msg if {
	after := input.resource_changes[_].change.after
	after.instance_type == "m5.large"
	msg := "m5.large is too big"
}

warn contains msg if {
	some rc in input.resource_changes
	tags := object.get(rc.change.after, "tags", {})
	count(tags) == 0
	rc.change.after != {}
	msg := sprintf("%s has no tags", [rc.address])
}
