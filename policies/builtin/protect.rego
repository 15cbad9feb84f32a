# METADATA
# title: Protected resources are not destroyed without an override
# description: >-
#   Destroying (or replacing) a resource tagged ctl:protect = "true" (label ctl-protect = "true"
#   on Google Cloud) fails unless the run is given --policy-override "reason".
# custom:
#   id: CTL-LIFECYCLE-001
#   level: soft-mandatory
package ctl.lifecycle.protect

import data.ctl.lib
import rego.v1

protected(before) if lib.tags(before)["ctl:protect"] == "true"

protected(before) if before.labels["ctl-protect"] == "true"

# ctl queries the findings array; deny is the same findings as a set (see lib.rego).
deny contains finding if some finding in findings

findings := [{"msg": msg, "address": rc.address} |
	some i in lib.destroyed
	rc := input.resource_changes[i]
	protected(rc.change.before)
	msg := concat("", [rc.address, " is tagged ctl:protect = \"true\"; the plan would ", verb(rc.change.actions), " it"])
]

verb(actions) := "replace" if "create" in actions

verb(actions) := "destroy" if not "create" in actions
