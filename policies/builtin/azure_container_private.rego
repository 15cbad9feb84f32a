# METADATA
# title: Azure storage containers are private
# description: Every azurerm_storage_container has container_access_type "private" (the default).
# custom:
#   id: CTL-AZURE-001
package ctl.azure.container_private

import data.ctl.lib
import rego.v1

deny contains {"msg": msg, "address": rc.address} if {
	some rc in lib.changing_type("azurerm_storage_container")
	access := object.get(rc.change.after, "container_access_type", "private")
	access != null
	access != "private"
	msg := concat("", [rc.address, ": container_access_type is \"", access, "\", not \"private\""])
}
