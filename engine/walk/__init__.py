"""The walk of a configuration: module calls and resources expanded into instances (count,
for_each), each in its scope, in dependency order; plan, validate and apply drive it with hooks."""
