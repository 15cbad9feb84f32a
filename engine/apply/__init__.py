"""Applying a plan: running its operations concurrently in dependency order."""
