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

deny contains {"msg": msg, "address": rc.address} if {
	some rc in lib.destroying
	protected(rc.change.before)
	msg := concat("", [rc.address, " is tagged ctl:protect = \"true\"; the plan would ", verb(rc.change.actions), " it"])
}

verb(actions) := "replace" if "create" in actions

verb(actions) := "destroy" if not "create" in actions
