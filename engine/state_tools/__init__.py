"""What ``ctl state …``, ``ctl workspace …`` and ``ctl import`` do to the stored state, one module per
thing acted on: ``listing`` (list, show), ``moving`` (mv, rm), ``pull_push``, ``locks``, ``history``,
``rollback`` (with ``diff``), ``workspaces`` and ``importing``; ``access`` opens the state for them.

These are the hand tools next to plan and apply: they edit the state directly, so each one keeps
the guarantees apply keeps — changes happen under the workspace lock, go through ``StateManager``
(serial bumped, lineage kept, compare-and-swap, backup kept by the store), and an interrupted
apply's journal is replayed before anything is looked at. The functions take plain values and
return data; the CLI decides how to show it.
"""
