package ctl.others_test

import data.ctl.aws.iam_no_wildcard
import data.ctl.aws.queue_topic_not_public
import data.ctl.azure.container_private
import data.ctl.gcp.uniform_bucket_access
import data.ctl.lifecycle.protect
import data.ctl.tags.required
import rego.v1

rc(type, name, after) := {"address": concat(".", [type, name]), "mode": "managed", "type": type, "name": name, "change": {"actions": ["create"], "after": after}}

star := "{\"Statement\": [{\"Effect\": \"Allow\", \"Action\": \"*\", \"Resource\": [\"*\"]}]}"

narrow := "{\"Statement\": [{\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\", \"Resource\": \"*\"}]}"

public := "{\"Statement\": {\"Effect\": \"Allow\", \"Principal\": {\"AWS\": \"*\"}, \"Action\": \"sqs:SendMessage\"}}"

conditional := "{\"Statement\": {\"Effect\": \"Allow\", \"Principal\": \"*\", \"Action\": \"sns:Publish\", \"Condition\": {\"StringEquals\": {\"aws:SourceAccount\": \"1\"}}}}"

test_iam_star_on_star_is_denied if {
	count(iam_no_wildcard.deny) == 1 with input as {"resource_changes": [rc("aws_iam_policy", "p", {"policy": star})]}
}

test_iam_narrow_action_passes if {
	count(iam_no_wildcard.deny) == 0 with input as {"resource_changes": [rc("aws_iam_role_policy", "p", {"policy": narrow})]}
}

test_iam_role_inline_policy_is_checked if {
	count(iam_no_wildcard.deny) == 1 with input as {"resource_changes": [rc("aws_iam_role", "r", {"inline_policy": [{"name": "x", "policy": star}]})]}
}

test_public_queue_is_denied if {
	count(queue_topic_not_public.deny) == 1 with input as {"resource_changes": [rc("aws_sqs_queue_policy", "q", {"policy": public})]}
}

test_topic_with_condition_passes if {
	count(queue_topic_not_public.deny) == 0 with input as {"resource_changes": [rc("aws_sns_topic", "t", {"policy": conditional})]}
}

test_queue_with_an_empty_policy_has_no_policy if {
	count(queue_topic_not_public.deny) == 0 with input as {"resource_changes": [rc("aws_sqs_queue", "q", {"policy": ""})]}
}

test_blob_container_is_denied if {
	count(container_private.deny) == 1 with input as {"resource_changes": [rc("azurerm_storage_container", "c", {"container_access_type": "blob"})]}
}

test_private_container_passes if {
	count(container_private.deny) == 0 with input as {"resource_changes": [rc("azurerm_storage_container", "c", {"container_access_type": "private"})]}
}

test_gcs_without_uniform_access_is_denied if {
	count(uniform_bucket_access.deny) == 1 with input as {"resource_changes": [rc("google_storage_bucket", "g", {"uniform_bucket_level_access": false})]}
}

test_gcs_with_uniform_access_passes if {
	count(uniform_bucket_access.deny) == 0 with input as {"resource_changes": [rc("google_storage_bucket", "g", {"uniform_bucket_level_access": true})]}
}

test_required_tags_off_by_default if {
	count(required.deny) == 0 with input as {"resource_changes": [rc("aws_instance", "i", {"tags": {}})]}
}

test_missing_required_tag_is_denied if {
	some d in required.deny with input as {"resource_changes": [rc("aws_instance", "i", {"tags": {"env": "x"}})]}
		with data.ctl.required_tags as ["owner", "env"]
	d.msg == "aws_instance.i: missing required tags: owner"
}

test_labels_count_as_tags if {
	count(required.deny) == 0 with input as {"resource_changes": [rc("google_storage_bucket", "g", {"labels": {"owner": "me"}})]}
		with data.ctl.required_tags as ["owner"]
}

destroy(tags) := {"resource_changes": [{"address": "aws_db_instance.db", "mode": "managed", "type": "aws_db_instance", "name": "db", "change": {"actions": ["delete"], "before": {"tags": tags}, "after": null}}]}

test_destroying_protected_resource_is_denied if {
	count(protect.deny) == 1 with input as destroy({"ctl:protect": "true"})
}

test_destroying_unprotected_resource_passes if {
	count(protect.deny) == 0 with input as destroy({"env": "dev"})
}

test_azure_public_container_message_names_the_access_type if {
	some d in container_private.deny with input as {"resource_changes": [rc("azurerm_storage_container", "c", {"container_access_type": "blob"})]}
	d.msg == "azurerm_storage_container.c: container_access_type is \"blob\", not \"private\""
}
