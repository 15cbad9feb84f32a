"""Converting values to cty types with Terraform's rules and cty's wording, shared by the schema
checker, the plugin codecs and whatever else converts a value to a declared type."""
