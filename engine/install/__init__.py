"""Provider installation: sources (registries, mirrors, caches), verification and the lock file.

``ctl init`` resolves each provider requirement to a version, fetches the package from the first
source that has it, verifies it (signed ``SHA256SUMS``, the lock file's hashes) and unpacks it under
``.ctl/providers``; ``.terraform.lock.hcl`` then pins the version and its hashes for every machine.
"""
