package main

import rego.v1

warn contains msg if {
	some rc in input.resource_changes
	"delete" in rc.change.actions
	msg := sprintf("%s will be replaced", [rc.address])
}

violation contains {"msg": msg, "resource": rc.address} if {
	some rc in input.resource_changes
	rc.change.after.tags
	not rc.change.after.tags.owner
	msg := "missing owner tag"
}
