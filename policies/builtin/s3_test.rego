package ctl.aws.s3_test

import data.ctl.aws.s3_encryption
import data.ctl.aws.s3_public_access_block
import data.ctl.aws.s3_state_versioning
import rego.v1

rc(type, name, after) := {"address": concat(".", [type, name]), "mode": "managed", "type": type, "name": name, "change": {"actions": ["create"], "after": after}}

pab(name, bucket, last) := rc("aws_s3_bucket_public_access_block", name, {"bucket": bucket, "block_public_acls": true, "block_public_policy": true, "ignore_public_acls": true, "restrict_public_buckets": last})

test_bucket_without_public_access_block_is_denied if {
	count(s3_public_access_block.deny) == 1 with input as {"resource_changes": [rc("aws_s3_bucket", "a", {"bucket": "a"})]}
}

test_bucket_with_full_block_passes if {
	count(s3_public_access_block.deny) == 0 with input as {"resource_changes": [rc("aws_s3_bucket", "a", {"bucket": "a"}), pab("a", "a", true)]}
}

test_block_with_a_setting_off_is_denied if {
	some d in s3_public_access_block.deny with input as {"resource_changes": [rc("aws_s3_bucket", "a", {"bucket": "a"}), pab("a", "a", false)]}
	contains(d.msg, "restrict_public_buckets")
}

test_block_matched_by_name_when_bucket_unknown if {
	count(s3_public_access_block.deny) == 0 with input as {"resource_changes": [rc("aws_s3_bucket", "logs", {}), pab("logs", null, true)]}
}

test_bucket_without_encryption_is_denied if {
	count(s3_encryption.deny) == 1 with input as {"resource_changes": [rc("aws_s3_bucket", "a", {"bucket": "a"})]}
}

test_bucket_with_encryption_resource_passes if {
	count(s3_encryption.deny) == 0 with input as {"resource_changes": [rc("aws_s3_bucket", "a", {"bucket": "a"}), rc("aws_s3_bucket_server_side_encryption_configuration", "a", {"bucket": "a"})]}
}

test_bucket_with_inline_encryption_passes if {
	count(s3_encryption.deny) == 0 with input as {"resource_changes": [rc("aws_s3_bucket", "a", {"bucket": "a", "server_side_encryption_configuration": [{"rule": []}]})]}
}

test_state_bucket_without_versioning_is_denied if {
	count(s3_state_versioning.deny) == 1 with input as {"resource_changes": [rc("aws_s3_bucket", "s", {"bucket": "org-tfstate"})]}
}

test_tagged_state_bucket_without_versioning_is_denied if {
	count(s3_state_versioning.deny) == 1 with input as {"resource_changes": [rc("aws_s3_bucket", "s", {"bucket": "x", "tags": {"ctl:state": "true"}})]}
}

test_state_bucket_with_versioning_passes if {
	count(s3_state_versioning.deny) == 0 with input as {"resource_changes": [
		rc("aws_s3_bucket", "s", {"bucket": "org-tfstate"}),
		rc("aws_s3_bucket_versioning", "s", {"bucket": "org-tfstate", "versioning_configuration": [{"status": "Enabled"}]}),
	]}
}

test_ordinary_bucket_needs_no_versioning if {
	count(s3_state_versioning.deny) == 0 with input as {"resource_changes": [rc("aws_s3_bucket", "a", {"bucket": "assets"})]}
}
