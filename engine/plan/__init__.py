"""Planning: what would change, and the views of a plan.

``model`` defines the Plan; ``planner`` computes it from configuration and refreshed state;
``json_view`` prints it (and states) in Terraform's ``show -json`` shapes so existing policy and
review tools read it unchanged; ``planfile`` saves it for a later ``ctl apply PLANFILE``.
The human rendering lives in ``cli/views/plan.py`` because only the CLI knows about terminals.
"""
