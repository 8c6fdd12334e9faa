"""Authentication for both families: API keys (both) and OIDC JWTs (Family B).

A successful authentication yields an ``Actor``: the organization every read and write is
scoped to, the role, and (for keys) the scopes.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.conf import settings
from django.db.models import Q
from rest_framework.authentication import BaseAuthentication, get_authorization_header

from apps.core.errors import AuthenticationFailed, PermissionDenied

from .models import ROLE_RANK, SCOPES, ApiKey, Organization, Role


@dataclass
class Actor:
    organization: Organization
    role: str
    credential_id: str  # stable id for rate limits and idempotency: "key:<uuid>" or "jwt:<sub>"
    scopes: frozenset[str] = field(default_factory=lambda: frozenset(SCOPES))
    api_key: ApiKey | None = None
    user: object | None = None
    subject: str = ""
    expires_at: float | None = None  # a JWT's `exp` (epoch seconds); keys do not expire
    #: the brands (ids as text) a member or key is limited to; empty: every brand
    brand_ids: frozenset[str] = field(default_factory=frozenset)

    # Django/DRF look for these on request.user
    is_authenticated = True

    def has_role(self, minimum: str) -> bool:
        return ROLE_RANK[Role(self.role)] >= ROLE_RANK[Role(minimum)]

    def require(self, *, role: str | None = None, scope: str | None = None) -> None:
        if role and not self.has_role(role):
            raise PermissionDenied(
                f"This action needs the {role} role; this credential has {self.role}.",
                {"requiredRole": role, "role": self.role},
            )
        if scope and scope not in self.scopes:
            raise PermissionDenied(f"This credential lacks the '{scope}' scope.", {"requiredScope": scope})

    # the family bases (apps.core.views) ask the actor, so core reads no plan itself
    def rate_limit(self, bucket: str) -> int | None:
        """Requests per minute the organization's plan allows in `bucket` (None: the default)."""
        from .plans import plan_rate_limit

        return plan_rate_limit(self.organization, bucket)

    def plan_name(self) -> str:
        from .plans import plan_of

        return plan_of(self.organization)


def _bearer(request) -> str | None:
    header = get_authorization_header(request).decode("latin-1", errors="replace").strip()
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthenticationFailed("Authorization header must be 'Bearer <token>'.")
    return token.strip()


def actor_from_api_key(secret: str) -> Actor:
    from .services import api_key_touch

    if not secret.startswith(ApiKey.PREFIX):
        raise AuthenticationFailed("Invalid API key.")
    lookup = secret[len(ApiKey.PREFIX) : len(ApiKey.PREFIX) + 12]
    hashed = ApiKey.hash_secret(secret)
    key = (
        ApiKey.objects.select_related("organization")
        .filter(lookup=lookup, hashed=hashed, revoked_at__isnull=True)
        .first()
    )
    if key is None:
        raise AuthenticationFailed("Invalid or revoked API key.")
    api_key_touch(api_key=key)
    scopes = frozenset(key.scopes) if key.scopes else frozenset(SCOPES)
    return Actor(
        organization=key.organization,
        role=key.role,
        credential_id=f"key:{key.pk}",
        scopes=scopes,
        api_key=key,
        user=key.created_by,
        brand_ids=frozenset(str(b) for b in key.brand_ids or []),
    )


# --- JWT -------------------------------------------------------------------------------

_dev_key_lock = threading.Lock()


def dev_private_key():
    """The development signing key the embedded default trusts (made on first use)."""
    path = Path(settings.DEV_TOKEN_KEY_PATH)
    with _dev_key_lock:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            pem = key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(pem)
            tmp.replace(path)
        return serialization.load_pem_private_key(path.read_bytes(), password=None)


def dev_token_issue(*, organization: Organization, role: str, subject: str, ttl: int = 3600 * 24) -> str:
    now = int(time.time())
    claims = {
        "iss": settings.DEV_TOKEN_ISSUER,
        "aud": settings.OIDC_AUDIENCE,
        "sub": subject,
        "iat": now,
        "exp": now + ttl,
        settings.OIDC_ORG_CLAIM: organization.external_id or str(organization.pk),
        settings.OIDC_ROLE_CLAIM: role,
    }
    return jwt.encode(claims, dev_private_key(), algorithm="RS256", headers={"kid": "postforge-dev"})


@lru_cache(maxsize=4)
def _jwks_client(url: str, lifespan: int, cooldown: float) -> jwt.PyJWKClient:
    # PyJWKClient caches the key set and refetches it when a token names an unknown kid
    # (at most once per `cooldown` seconds, so forged kids cannot hammer the provider):
    # that is how key rotation at the provider is picked up.
    return jwt.PyJWKClient(url, cache_jwk_set=True, lifespan=lifespan, timeout=5, cooldown_duration=cooldown)


def _decode(token: str) -> dict:
    try:
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError as exc:
        raise AuthenticationFailed("Malformed token.") from exc
    issuer = unverified.get("iss")
    try:
        if settings.OIDC_ISSUER and issuer == settings.OIDC_ISSUER:
            client = _jwks_client(
                settings.OIDC_JWKS_URL, settings.OIDC_JWKS_CACHE_SECONDS, settings.OIDC_JWKS_REFRESH_COOLDOWN
            )
            signing_key = client.get_signing_key_from_jwt(token).key
            return jwt.decode(
                token,
                signing_key,
                algorithms=settings.OIDC_ALGORITHMS,
                audience=settings.OIDC_AUDIENCE,
                issuer=settings.OIDC_ISSUER,
                options={"require": ["exp", "sub"]},
            )
        if issuer == settings.DEV_TOKEN_ISSUER and getattr(settings, "DEV_TOKENS_ENABLED", True):
            return jwt.decode(
                token,
                dev_private_key().public_key(),
                algorithms=["RS256"],
                audience=settings.OIDC_AUDIENCE,
                issuer=settings.DEV_TOKEN_ISSUER,
                options={"require": ["exp", "sub"]},
            )
    except jwt.ExpiredSignatureError as exc:
        raise AuthenticationFailed("Token expired.") from exc
    except (jwt.PyJWTError, jwt.PyJWKClientError) as exc:
        raise AuthenticationFailed(f"Invalid token: {exc}") from exc
    raise AuthenticationFailed("Token issuer is not trusted.")


def _check_lifetime(claims: dict) -> None:
    """Refuse tokens issued for longer than OIDC_MAX_TOKEN_AGE (a stolen long-lived token
    would otherwise stay good for its whole life: a JWT cannot be revoked here)."""
    exp, iat = claims.get("exp"), claims.get("iat")
    start = iat if isinstance(iat, (int, float)) and not isinstance(iat, bool) else time.time()
    if not isinstance(exp, (int, float)) or isinstance(exp, bool):
        raise AuthenticationFailed("Token has no valid 'exp' claim.")
    if exp - start > settings.OIDC_MAX_TOKEN_AGE:
        raise AuthenticationFailed(
            f"Token lifetime exceeds the {settings.OIDC_MAX_TOKEN_AGE} s this service accepts; ask for a shorter-lived token."
        )


def actor_from_jwt(token: str) -> Actor:
    from .services import organization_get_or_create, user_sync_from_identity

    claims = _decode(token)
    _check_lifetime(claims)
    org_ref = claims.get(settings.OIDC_ORG_CLAIM)
    if not org_ref or not isinstance(org_ref, str):
        raise AuthenticationFailed(f"Token has no '{settings.OIDC_ORG_CLAIM}' claim.")
    from .services import role_from_claim

    role = role_from_claim(claims.get(settings.OIDC_ROLE_CLAIM))
    from apps.core.ids import parse

    pk = parse(org_ref, "organization")  # the claim may hold our id or the provider's
    found = list(
        Organization.objects.filter(Q(external_id=org_ref) | Q(pk=pk) if pk else Q(external_id=org_ref))[:2]
    )
    org = next((o for o in found if o.external_id == org_ref), found[0] if found else None)
    if org is None:
        # First sight of an organization the identity provider vouches for.
        org = organization_get_or_create(name=claims.get("org_name") or org_ref, external_id=org_ref)
    user = user_sync_from_identity(
        organization=org, subject=str(claims["sub"]), email=claims.get("email", ""), role=role
    )
    return Actor(
        organization=org,
        role=role,
        credential_id=f"jwt:{org.pk.hex}:{claims['sub']}"[:80],
        user=user,
        subject=str(claims["sub"]),
        expires_at=float(claims["exp"]),
        brand_ids=frozenset(str(b) for b in getattr(user, "brand_ids", None) or []),
    )


def authenticate_token(token: str, *, allow_jwt: bool) -> Actor:
    if token.startswith(ApiKey.PREFIX):
        return actor_from_api_key(token)
    if allow_jwt and token.count(".") == 2:
        return actor_from_jwt(token)
    raise AuthenticationFailed("Invalid API key." if not allow_jwt else "Invalid token.")


class _BearerAuthentication(BaseAuthentication):
    allow_jwt = False

    def authenticate(self, request):
        token = _bearer(request)
        if token is None:
            return None
        actor = authenticate_token(token, allow_jwt=self.allow_jwt)
        return (actor, actor)

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="postforge"'


class ApiKeyAuthentication(_BearerAuthentication):
    """Family A: ``Authorization: Bearer pf_live_...``."""


class ApiKeyOrJWTAuthentication(_BearerAuthentication):
    """Family B: identity-provider JWTs, and API keys."""

    allow_jwt = True
