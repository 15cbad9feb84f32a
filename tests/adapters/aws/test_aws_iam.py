"""``aws_iam_role``, ``aws_iam_role_policy`` and ``data.aws_caller_identity`` through ``ctl`` against moto.

moto accepts any trust policy and any access key, and always answers GetCallerIdentity with account
123456789012 for the (fake) user ``moto``.
"""

from __future__ import annotations

import json
from urllib.parse import unquote

from tests.adapters.aws.aws_helpers import DRIFT, AwsProject

TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}


def trust_text(service: str = "lambda.amazonaws.com", *, pretty: bool = False) -> str:
    document = json.loads(json.dumps(TRUST).replace("lambda.amazonaws.com", service))
    if pretty:  # same meaning: other whitespace, other key order, Action as a one-element list
        statement = document["Statement"][0]
        document = {"Statement": [{"Action": [statement["Action"]], "Principal": statement["Principal"],
                                   "Effect": "Allow"}], "Version": "2012-10-17"}
        return json.dumps(document, indent=2)
    return json.dumps(document)


def config(*, name: str = "app", trust: str | None = None, description: str = "the app",
           duration: int = 3600, action: str = "s3:GetObject") -> str:
    return f"""
data "aws_caller_identity" "me" {{}}

resource "aws_iam_role" "r" {{
  name                 = "{name}"
  description          = "{description}"
  max_session_duration = {duration}
  tags                 = {{ team = "a" }}
  assume_role_policy   = <<-EOT
{trust or trust_text()}
EOT
}}

resource "aws_iam_role_policy" "p" {{
  name = "read"
  role = aws_iam_role.r.name
  policy = jsonencode({{
    Version   = "2012-10-17"
    Statement = [{{ Effect = "Allow", Action = "{action}", Resource = "*" }}]
  }})
}}

output "account" {{ value = data.aws_caller_identity.me.account_id }}
"""


def role(aws: AwsProject, name: str = "app") -> dict:
    return dict(aws.client("iam").get_role(RoleName=name)["Role"])


def inline(aws: AwsProject, name: str = "app") -> dict:
    document = aws.client("iam").get_role_policy(RoleName=name, PolicyName="read")["PolicyDocument"]
    return json.loads(unquote(document)) if isinstance(document, str) else dict(document)


def test_role_and_policy_lifecycle(aws: AwsProject) -> None:
    aws.setup(config())
    assert "2 added" in aws.apply().stdout
    assert aws.ok("output", "--raw", "account").stdout.strip() == "123456789012"
    found = role(aws)
    assert found["AssumeRolePolicyDocument"] == TRUST
    assert found["Description"] == "the app" and found["MaxSessionDuration"] == 3600
    state = aws.attrs("aws_iam_role.r")
    assert state["arn"] == found["Arn"] and state["unique_id"] == found["RoleId"]
    assert state["assume_role_policy"] == trust_text() + "\n"  # the user's own text is kept
    assert inline(aws)["Statement"][0]["Action"] in ("s3:GetObject", ["s3:GetObject"])
    assert aws.attrs("aws_iam_role_policy.p")["id"] == "app:read"
    aws.assert_noop()

    # the trust policy reformatted (same meaning) is no change, and the state keeps the old text
    aws.setup(config(trust=trust_text(pretty=True)))
    aws.assert_noop()
    assert aws.attrs("aws_iam_role.r")["assume_role_policy"] == trust_text() + "\n"

    # in place: trust policy, description, session length, inline policy
    aws.setup(config(trust=trust_text("ec2.amazonaws.com"), description="changed", duration=7200,
                     action="s3:PutObject"))
    assert "0 added, 2 changed, 0 destroyed" in aws.apply().stdout
    found = role(aws)
    assert found["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "ec2.amazonaws.com"}
    assert found["Description"] == "changed" and found["MaxSessionDuration"] == 7200
    assert inline(aws)["Statement"][0]["Action"] in ("s3:PutObject", ["s3:PutObject"])
    aws.assert_noop()

    # drift: trust policy changed and the inline policy deleted behind ctl's back
    iam = aws.client("iam")
    iam.update_assume_role_policy(RoleName="app", PolicyDocument=json.dumps(TRUST))
    iam.delete_role_policy(RoleName="app", PolicyName="read")
    code, out = aws.plan_code()
    assert code == 2 and DRIFT in out and "1 to add, 1 to change, 0 to destroy" in out
    aws.apply()
    assert role(aws)["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "ec2.amazonaws.com"}
    assert inline(aws)["Statement"][0]["Action"] in ("s3:PutObject", ["s3:PutObject"])

    # replace: a new role name is a new role, and its inline policy moves with it
    aws.setup(config(name="app2", trust=trust_text("ec2.amazonaws.com"), description="changed", duration=7200,
                     action="s3:PutObject"))
    res = aws.apply()
    assert "must be replaced" in res.stdout and "2 added, 0 changed, 2 destroyed" in res.stdout
    assert [r["RoleName"] for r in iam.list_roles()["Roles"]] == ["app2"]
    assert inline(aws, "app2")["Statement"]

    aws.ok("destroy", "--auto-approve")
    assert iam.list_roles()["Roles"] == []


def test_role_and_policy_import(aws: AwsProject) -> None:
    """Import by role name and by ROLE:POLICY, then the same configuration plans no change.

    (Imported objects carry no recorded dependencies until they are next changed, so the delete
    order of role and policy would not be known; this test therefore ends after the import.)
    """
    iam = aws.client("iam")
    iam.create_role(RoleName="app", AssumeRolePolicyDocument=trust_text(), Description="the app",
                    Tags=[{"Key": "team", "Value": "a"}])
    iam.put_role_policy(RoleName="app", PolicyName="read", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}))
    aws.setup(config().split('output "account"')[0])  # no output: only the resources are compared
    assert "Import successful" in aws.ok("import", "aws_iam_role.r", "app").stdout
    assert "Import successful" in aws.ok("import", "aws_iam_role_policy.p", "app:read").stdout
    state = aws.attrs("aws_iam_role.r")
    assert state["arn"] == iam.get_role(RoleName="app")["Role"]["Arn"] and state["tags"] == {"team": "a"}
    assert aws.attrs("aws_iam_role_policy.p")["id"] == "app:read"
    aws.assert_noop()


def test_role_with_policies_made_outside_needs_force_detach(aws: AwsProject) -> None:
    aws.setup(f"""
resource "aws_iam_role" "r" {{
  name               = "busy"
  assume_role_policy = {json.dumps(trust_text())}
}}
""")
    aws.apply()
    aws.client("iam").put_role_policy(RoleName="busy", PolicyName="extra",
                                      PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [
                                          {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    res = aws.ctl("destroy", "--auto-approve")
    assert res.code == 1 and 'IAM role "busy"' in res.output and "Traceback" not in res.output
    assert "force_detach_policies" in res.output

    aws.write(aws.path("main.tf").read_text().replace('name               = "busy"',
                                                      'name = "busy"\n  force_detach_policies = true'))
    aws.apply()
    aws.ok("destroy", "--auto-approve")
    assert aws.client("iam").list_roles()["Roles"] == []


def test_a_permissions_boundary_is_set_changed_and_removed(aws: AwsProject) -> None:
    iam = aws.client("iam")
    boundaries = [iam.create_policy(PolicyName=f"boundary-{i}", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        ["Policy"]["Arn"] for i in (1, 2)]

    def with_boundary(arn: str | None) -> str:
        line = f'  permissions_boundary = "{arn}"\n' if arn else ""
        return (f'resource "aws_iam_role" "r" {{\n  name = "bounded"\n{line}'
                f"  assume_role_policy = jsonencode({json.dumps(TRUST).replace(':', ' =')})\n}}\n")

    aws.setup(with_boundary(boundaries[0]))
    aws.apply()
    assert role(aws, "bounded")["PermissionsBoundary"]["PermissionsBoundaryArn"] == boundaries[0]
    assert aws.attrs("aws_iam_role.r")["permissions_boundary"] == boundaries[0]
    aws.assert_noop()
    aws.setup(with_boundary(boundaries[1]))
    assert "1 changed" in aws.apply().stdout
    assert role(aws, "bounded")["PermissionsBoundary"]["PermissionsBoundaryArn"] == boundaries[1]
    aws.setup(with_boundary(None))
    aws.apply()
    assert "PermissionsBoundary" not in role(aws, "bounded")
    aws.assert_noop()
