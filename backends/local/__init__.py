"""The local backend: the state as a file on disk (``store``), made crash-safe by the file primitives
of ``files``, with the apply journal appended through held descriptors (``journal``) and a lock's
holder checked for liveness on this host (``holders``)."""
