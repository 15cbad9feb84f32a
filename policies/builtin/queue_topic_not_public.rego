# METADATA
# title: SQS queues and SNS topics are not public
# description: >-
#   No policy of an SQS queue or SNS topic allows anyone ("*" principal) without a condition.
# custom:
#   id: CTL-AWS-MSG-001
package ctl.aws.queue_topic_not_public

import data.ctl.lib
import rego.v1

policy_types := {"aws_sqs_queue", "aws_sqs_queue_policy", "aws_sns_topic", "aws_sns_topic_policy"}

everyone(p) if p == "*"

everyone(p) if lib.as_list(p.AWS)[_] == "*"

# ctl queries the findings array; deny is the same findings as a set (see lib.rego).
deny contains finding if some finding in findings

findings := [{"msg": msg, "address": rc.address} |
	some t in policy_types
	some i in lib.changing(t)
	rc := input.resource_changes[i]
	some statement in lib.policy_statements(rc.change.after.policy)
	statement.Effect == "Allow"
	everyone(statement.Principal)
	not statement.Condition
	msg := sprintf("%s: the policy allows anyone (Principal \"*\") without a condition", [rc.address])
]
