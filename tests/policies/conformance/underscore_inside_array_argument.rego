package main

import rego.v1

warn contains msg if {
	msg := sprintf("type %s", [input.resource_changes[_].type])
}
