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

wildcards := {"*", "*:*"}

wildcard(x) if x in wildcards

wildcard(x) if {
	is_array(x)
	some item in x
	item in wildcards
}

# A policy document (JSON text) with a statement that allows every action on every resource.
star_on_star(text) if {
	some statement in lib.policy_statements(text)
	statement.Effect == "Allow"
	wildcard(statement.Action)
	wildcard(statement.Resource)
}

# ctl queries the findings array; deny is the same findings as a set (see lib.rego).
deny contains finding if some finding in findings

findings := array.concat(policies, role_inline_policies)

policies := [{"msg": msg, "address": rc.address} |
	some t in policy_types
	some i in lib.changing(t)
	rc := input.resource_changes[i]
	star_on_star(rc.change.after.policy)
	msg := sprintf("%s: the policy allows every action (\"*\") on every resource (\"*\")", [rc.address])
]

role_inline_policies := [{"msg": msg, "address": rc.address} |
	some i in lib.changing("aws_iam_role")
	rc := input.resource_changes[i]
	some inline in rc.change.after.inline_policy
	star_on_star(inline.policy)
	msg := sprintf("%s: the policy allows every action (\"*\") on every resource (\"*\")", [rc.address])
]
