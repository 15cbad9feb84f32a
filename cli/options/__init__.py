"""Command-line options shared by several commands, turned into the engine's option objects."""
