# METADATA
# title: GCS buckets use uniform bucket-level access
# description: Every google_storage_bucket sets uniform_bucket_level_access = true.
# custom:
#   id: CTL-GCP-001
package ctl.gcp.uniform_bucket_access

import data.ctl.lib
import rego.v1

deny contains {"msg": msg, "address": rc.address} if {
	some rc in lib.changing_type("google_storage_bucket")
	not rc.change.after.uniform_bucket_level_access == true
	msg := sprintf("%s: uniform_bucket_level_access is not enabled", [rc.address])
}
