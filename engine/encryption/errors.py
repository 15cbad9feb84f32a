"""The one error type of encryption: a clear message, never a partial or plaintext write."""

from vocab.errors import CtlError


class EncryptionError(CtlError):
    """Encryption is misconfigured, a key is wrong or missing, or a sealed document was tampered with."""
