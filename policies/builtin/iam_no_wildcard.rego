# METADATA
# title: IAM policies grant no "*" action on "*" resource
# description: >-
#   No IAM policy (aws_iam_policy, aws_iam_role_policy, aws_iam_user_policy, aws_iam_group_policy
#   or an inline_policy of aws_iam_role) allows every action on every resource.
# custom:
#   id: CTL-AWS-IAM-001
package ctl.aws.iam_no_wildcard

import data.ctl.lib
import rego.v1

policy_types := {"aws_iam_policy", "aws_iam_role_policy", "aws_iam_user_policy", "aws_iam_group_policy"}

documents := array.concat(
	[[rc.address, rc.change.after.policy] | some t in policy_types; some rc in lib.changing_type(t)],
	[[rc.address, inline.policy] |
		some rc in lib.changing_type("aws_iam_role")
		some inline in rc.change.after.inline_policy
	],
)

wildcards := {"*", "*:*"}

wildcard(x) if x in wildcards

wildcard(x) if {
	is_array(x)
	some item in x
	item in wildcards
}

deny contains {"msg": msg, "address": address} if {
	some [address, text] in documents
	some statement in lib.policy_statements(text)
	statement.Effect == "Allow"
	wildcard(statement.Action)
	wildcard(statement.Resource)
	msg := sprintf("%s: the policy allows every action (\"*\") on every resource (\"*\")", [address])
}
