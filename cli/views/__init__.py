"""How results look: the human rendering of plans, state, outputs, timings and policy verdicts, and the
machine-readable JSON UI. Views print; they never call the engine to compute something."""
