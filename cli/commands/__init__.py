"""One module per command or command group: each parses its options, calls the engine and hands the
result to a view. Commands do not import each other; what two commands share is an option
(``cli.options``) or a view (``cli.views``)."""
