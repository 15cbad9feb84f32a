package main

import rego.v1

# A one-line rule: ctl rewrites iteration inside call arguments only in braced rule bodies, so this
# one is refused with a hint showing how to write it.
deny contains "no aws" if startswith(input.resource_changes[_].type, "aws_")
