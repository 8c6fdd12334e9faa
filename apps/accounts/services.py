"""Writes for organizations, memberships and API keys."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from apps.core.errors import ValidationFailed

from .models import SCOPES, ApiKey, Membership, Organization, Role


@dataclass(frozen=True)
class IssuedKey:
    api_key: ApiKey
    secret: str


@transaction.atomic
def organization_get_or_create(*, name: str, external_id: str | None = None) -> Organization:
    """Find an organization by external id or name, creating it with its default brand."""
    from apps.brands.services import brand_ensure_default

    org = None
    if external_id:
        org = Organization.objects.filter(external_id=external_id).first()
    if org is None:
        org = Organization.objects.filter(name=name).first()
    if org is None:
        org = Organization.objects.create(name=name, external_id=external_id or None)
    brand_ensure_default(organization=org)
    return org


def api_key_create(
    *,
    organization: Organization,
    name: str = "API key",
    role: str = Role.ADMIN,
    scopes: list[str] | None = None,
    created_by=None,
) -> IssuedKey:
    if role not in Role.values:
        raise ValidationFailed("Unknown role.", {"role": [f"Must be one of {', '.join(Role.values)}."]})
    unknown = sorted(set(scopes or []) - set(SCOPES))
    if unknown:
        raise ValidationFailed("Unknown scope.", {"scopes": [f"Unknown: {', '.join(unknown)}."]})
    secret = ApiKey.PREFIX + secrets.token_urlsafe(30)[:40]
    key = ApiKey.objects.create(
        organization=organization,
        name=name,
        role=role,
        scopes=list(scopes or []),
        lookup=secret[len(ApiKey.PREFIX) : len(ApiKey.PREFIX) + 12],
        hashed=ApiKey.hash_secret(secret),
        created_by=created_by,
    )
    return IssuedKey(api_key=key, secret=secret)


def api_key_touch(*, api_key: ApiKey) -> None:
    """Record use, at most once a minute, so that reads do not each cost a write."""
    now = timezone.now()
    if api_key.last_used_at and (now - api_key.last_used_at).total_seconds() < 60:
        return
    ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=now)
    api_key.last_used_at = now


def api_key_revoke(*, api_key: ApiKey) -> ApiKey:
    """Revoke a key; after commit its open websockets are told to close (REST refuses it at
    once: every request looks the key up)."""
    if api_key.revoked_at is None:
        api_key.revoke()
        credential_id = f"key:{api_key.pk}"
        transaction.on_commit(lambda: _close_sockets_of(credential_id))
    return api_key


def _close_sockets_of(credential_id: str) -> None:
    import logging

    from apps.events.connections import credential_group
    from apps.events.realtime import group_send_many

    try:
        group_send_many([(credential_group(credential_id), {"type": "credential.revoked"})])
    except Exception:  # the channel layer is down: no socket can receive events either
        logging.getLogger(__name__).warning("Could not notify the websockets of revoked %s", credential_id)


def user_sync_from_identity(*, organization: Organization, subject: str, email: str = "", role: str) -> object:
    """Create or update the Django user behind an identity-provider subject.

    Runs on every token-authenticated request, so it reads first and writes only what the
    token changed (a new user, another email, another role)."""
    User = get_user_model()
    username = f"idp:{subject}"[:150]
    user = User.objects.filter(username=username).first()
    if user is None:
        with transaction.atomic():
            user, _ = User.objects.get_or_create(username=username, defaults={"email": email})
    if email and user.email != email:
        user.email = email
        user.save(update_fields=["email"])
    current = Membership.objects.filter(organization=organization, user=user).values_list("role", flat=True).first()
    if current != role:
        with transaction.atomic():
            Membership.objects.update_or_create(organization=organization, user=user, defaults={"role": role})
    return user
