# METADATA
# title: GCS buckets use uniform bucket-level access
# description: Every google_storage_bucket sets uniform_bucket_level_access = true.
# custom:
#   id: CTL-GCP-001
package ctl.gcp.uniform_bucket_access

import data.ctl.lib
import rego.v1

# ctl queries the findings array; deny is the same findings as a set (see lib.rego).
deny contains finding if some finding in findings

findings := [{"msg": msg, "address": rc.address} |
	some i in lib.changing("google_storage_bucket")
	rc := input.resource_changes[i]
	not rc.change.after.uniform_bucket_level_access == true
	msg := sprintf("%s: uniform_bucket_level_access is not enabled", [rc.address])
]
