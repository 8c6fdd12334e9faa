"""Encryption at rest for OAuth tokens.

Tokens are encrypted with ``MultiFernet`` over ``settings.TOKEN_ENCRYPTION_KEYS``
(comma-separated Fernet keys, newest first): the newest key encrypts, every key decrypts,
so a key can be rotated in by prepending it and running ``manage.py rotate_token_keys``.
With no keys configured (the embedded default) one key is derived from ``SECRET_KEY``
with HKDF, so tokens are still never stored in clear.

Nothing here logs or reprs a token.
"""

from __future__ import annotations

import base64
import functools

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

__all__ = ["InvalidToken", "decrypt", "encrypt", "rotate"]


def _derived_key(secret: str) -> bytes:
    hkdf = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=b"postforge-token-encryption", info=b"oauth-tokens"
    )
    return base64.urlsafe_b64encode(hkdf.derive(secret.encode()))


#: the SECRET_KEY the embedded default used before it kept its own in var/: tokens stored
#: then still decrypt there (never used to encrypt)
_LEGACY_DEVELOPMENT_SECRET = "postforge-insecure-development-key-change-me-in-production"


@functools.lru_cache(maxsize=8)
def _fernet_for(keys: tuple[str, ...], secret: str, legacy: bool = False) -> MultiFernet:
    material = [k.strip().encode() for k in keys if k and k.strip()] or [_derived_key(secret)]
    if legacy and not keys and secret != _LEGACY_DEVELOPMENT_SECRET:
        material.append(_derived_key(_LEGACY_DEVELOPMENT_SECRET))
    return MultiFernet([Fernet(k) for k in material])


def _fernet() -> MultiFernet:
    keys = settings.TOKEN_ENCRYPTION_KEYS
    if isinstance(keys, str):
        keys = keys.split(",")
    keys = tuple(k for k in keys or () if k and k.strip())
    return _fernet_for(keys, settings.SECRET_KEY, getattr(settings, "DEVELOPMENT", False))


def encrypt(value: str) -> str:
    """Encrypt a token with the newest key; the empty string stays empty."""
    if not value:
        return ""
    return _fernet().encrypt(value.encode()).decode()


def decrypt(value: str) -> str:
    """Decrypt with any configured key. Raises ``InvalidToken`` when no key fits."""
    if not value:
        return ""
    return _fernet().decrypt(value.encode()).decode()


def rotate(value: str) -> str:
    """Re-encrypt a stored token with the newest key (keeps its original timestamp)."""
    if not value:
        return ""
    return _fernet().rotate(value.encode()).decode()
