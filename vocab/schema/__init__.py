"""Terraform's provider schema form (blocks, attributes, cty types, nesting) and its decoder: what
native adapters and provider plugins both describe their arguments with, so one checker serves both."""
