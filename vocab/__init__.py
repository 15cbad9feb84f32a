"""The words every layer of ctl speaks: errors and exit codes, source positions, values, limits, locks.

This package sits at the bottom and imports nothing else of the project, so ``cli``, ``engine``,
``adapters``, ``backends`` and ``policies`` can all share it without importing each other in a circle
(the import-linter contracts in ``pyproject.toml`` hold that rule).
"""
