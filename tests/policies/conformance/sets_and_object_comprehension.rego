package main

import rego.v1

types := {rc.type | some rc in input.resource_changes}

owners := {rc.address: rc.change.after.tags.owner |
	some rc in input.resource_changes
	rc.change.after.tags.owner
}

deny contains msg if {
	count(types) > 2
	msg := sprintf("too many types: %d", [count(types)])
}

warn contains msg if {
	some address, owner in owners
	msg := sprintf("%s belongs to %s", [address, owner])
}
