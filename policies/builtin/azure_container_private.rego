# METADATA
# title: Azure storage containers are private
# description: Every azurerm_storage_container has container_access_type "private" (the default).
# custom:
#   id: CTL-AZURE-001
package ctl.azure.container_private

import data.ctl.lib
import rego.v1

# ctl queries the findings array; deny is the same findings as a set (see lib.rego).
deny contains finding if some finding in findings

findings := [{"msg": msg, "address": rc.address} |
	some i in lib.changing("azurerm_storage_container")
	rc := input.resource_changes[i]
	access := object.get(rc.change.after, "container_access_type", "private")
	access != null
	access != "private"
	msg := concat("", [rc.address, ": container_access_type is \"", access, "\", not \"private\""])
]
