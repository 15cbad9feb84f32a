"""What a run measures about itself: the timing report (``timings``), the trace built from the same
measurements (``tracing``), and the time of ctl's own requests to cloud APIs (``cloud``).

One recorder per command is handed down by the caller; with measuring off the engine is given
``None`` and skips every measurement with one ``is None`` test, so nothing is paid for it.
"""
