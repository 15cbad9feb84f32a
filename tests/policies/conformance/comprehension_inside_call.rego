package main

import rego.v1

warn contains msg if {
	msg := concat(",", sort([t | t := input.resource_changes[_].type]))
}
