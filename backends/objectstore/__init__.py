"""The state-store protocol over an object store, written once for S3, GCS and Azure Blob: the
protocol itself in ``store``, the values its primitives exchange and the metadata encoding in
``objects``."""
