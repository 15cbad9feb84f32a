"""Client-side encryption of state, journal and saved plans (OpenTofu's ``encryption`` block model).

State and plans hold every secret a configuration touches, in buckets many people and CI systems can
read. With an ``encryption`` block in ``terraform {}`` (or the same block's contents in
``CTL_ENCRYPTION``/``TF_ENCRYPTION``), everything ctl writes that holds state is sealed (AES-GCM, or
an external program: OpenTofu's ``external`` method) before it leaves the process: ``config`` reads the block, ``keys`` turns key providers
(``pbkdf2``, ``aws_kms``, ``external``, chains of them) into data keys, ``program`` runs OpenTofu's
external programs and ``methods`` the external method, ``envelope`` seals and opens one document in
OpenTofu's layout, ``target`` applies a target's method, fallback and ``enforced`` rule, and
``store`` wraps a backend so state, history, backups and the journal are covered in one place.
"""

from engine.encryption.config import EncryptionConfig, encryption_config
from engine.encryption.envelope import is_encrypted
from engine.encryption.store import EncryptingStore, encrypting_store
from engine.encryption.target import Target

__all__ = ["EncryptingStore", "EncryptionConfig", "Target", "encrypting_store", "encryption_config", "is_encrypted"]
