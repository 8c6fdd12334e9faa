"""Writes for organizations, memberships and API keys."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from apps.core.errors import InvalidSubject

from .models import SCOPES, ApiKey, Membership, Organization, Role
from .signals import credential_revoked, organization_provisioned


@dataclass(frozen=True)
class IssuedKey:
    api_key: ApiKey
    secret: str


@transaction.atomic
def organization_get_or_create(*, name: str, external_id: str | None = None) -> Organization:
    """Find an organization by external id or name, creating it with its default brand."""
    org = None
    if external_id:
        org = Organization.objects.filter(external_id=external_id).first()
    if org is None:
        org = Organization.objects.filter(name=name).first()
    if org is None:
        org = Organization.objects.create(name=name, external_id=external_id or None)
    organization_provisioned.send(sender=Organization, organization=org)  # brands: the default brand
    return org


def brands_of(*, organization: Organization, brand_ids: list[str]) -> list[str]:
    """The brand ids a membership or key is limited to (canonical UUIDs; `brd_` ids are taken),
    each one of the organization's brands, else an InvalidSubject naming them."""
    from django.apps import apps as registry

    from apps.core import ids

    if not brand_ids:
        return []
    parsed = [ids.parse(raw, "brand") for raw in brand_ids]
    brand_model = registry.get_model("brands", "Brand")
    known = {
        str(pk)
        for pk in brand_model.objects.filter(
            organization=organization, pk__in=[p for p in parsed if p]
        ).values_list("pk", flat=True)
    }
    unknown = [str(raw) for raw, pk in zip(brand_ids, parsed, strict=True) if str(pk) not in known]
    if unknown:
        raise InvalidSubject(
            "Unknown brand.", "brands", f"Not this organization's brands: {', '.join(unknown)}."
        )
    return [str(pk) for pk in parsed]


def api_key_create(
    *,
    organization: Organization,
    name: str = "API key",
    role: str = Role.ADMIN,
    scopes: list[str] | None = None,
    created_by=None,
    brand_ids: list[str] | None = None,
) -> IssuedKey:
    if role not in Role.values:
        raise InvalidSubject("Unknown role.", "role", f"Must be one of {', '.join(Role.values)}.")
    unknown = sorted(set(scopes or []) - set(SCOPES))
    if unknown:
        raise InvalidSubject("Unknown scope.", "scopes", f"Unknown: {', '.join(unknown)}.")
    brand_ids = brands_of(organization=organization, brand_ids=brand_ids or [])
    secret = ApiKey.PREFIX + secrets.token_urlsafe(30)[:40]
    key = ApiKey.objects.create(
        organization=organization,
        name=name,
        role=role,
        scopes=list(scopes or []),
        brand_ids=brand_ids,
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
        transaction.on_commit(lambda: credential_revoked.send(sender=ApiKey, credential_id=credential_id))
    return api_key


def user_sync_from_identity(
    *, organization: Organization, subject: str, email: str = "", role: str
) -> object:
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
    user.brand_ids = []  # type: ignore[attr-defined]  # the membership's brand restriction, read below
    current = (
        Membership.objects.filter(organization=organization, user=user)
        .values_list("role", "brand_ids")
        .first()
    )
    if current is None or current[0] != role:
        with transaction.atomic():
            Membership.objects.update_or_create(organization=organization, user=user, defaults={"role": role})
    if current is not None:
        user.brand_ids = list(current[1] or [])  # type: ignore[attr-defined]
    return user


# --- identity-provider and billing sync (inbound system webhooks) ----------------------------


def role_from_claim(value) -> str:
    """The role an identity provider names, mapped as the JWT role claim is ("org:admin" ->
    admin; an unknown role, e.g. Clerk's "org:member", is a viewer)."""
    role = str(value or "").strip().lower().removeprefix("org:")
    return role if role in Role.values else Role.VIEWER


def _idp_username(subject: str) -> str:
    return f"idp:{subject}"[:150]


@transaction.atomic
def organization_sync_from_identity(*, external_id: str, name: str = "") -> Organization:
    """Create or rename the organization the identity provider calls `external_id`."""
    org = Organization.objects.select_for_update().filter(external_id=external_id).first()
    if org is None:
        org = Organization.objects.create(name=(name or external_id)[:200], external_id=external_id)
        organization_provisioned.send(sender=Organization, organization=org)  # brands: the default brand
    elif name and org.name != name[:200]:
        org.name = name[:200]
        org.save(update_fields=["name"])
    return org


@transaction.atomic
def organization_delete_from_identity(*, external_id: str) -> bool:
    """The identity provider deleted the organization: it goes, with everything in it."""
    deleted, _ = Organization.objects.filter(external_id=external_id).delete()
    return bool(deleted)


def user_sync_from_identity_event(
    *, subject: str, email: str = "", first_name: str = "", last_name: str = ""
):
    """Create or update the user behind an identity-provider subject (no membership change)."""
    User = get_user_model()
    with transaction.atomic():
        user, created = User.objects.select_for_update().get_or_create(
            username=_idp_username(subject),
            defaults={"email": email, "first_name": first_name[:150], "last_name": last_name[:150]},
        )
        if not created:
            changed = {
                k: v
                for k, v in (
                    ("email", email),
                    ("first_name", first_name[:150]),
                    ("last_name", last_name[:150]),
                )
                if v and getattr(user, k) != v
            }
            for k, v in changed.items():
                setattr(user, k, v)
            if changed:
                user.save(update_fields=list(changed))
    return user


@transaction.atomic
def user_delete_from_identity(*, subject: str) -> bool:
    """The identity provider deleted the user: the user and its memberships go (what it
    made stays with its organization)."""
    deleted, _ = get_user_model().objects.filter(username=_idp_username(subject)).delete()
    return bool(deleted)


@transaction.atomic
def membership_sync_from_identity(
    *, org_external_id: str, subject: str, role: str, org_name: str = "", email: str = ""
) -> Membership:
    org = organization_sync_from_identity(external_id=org_external_id, name=org_name)
    user = user_sync_from_identity_event(subject=subject, email=email)
    membership, _ = Membership.objects.update_or_create(
        organization=org, user=user, defaults={"role": role_from_claim(role)}
    )
    return membership


@transaction.atomic
def membership_delete_from_identity(*, org_external_id: str, subject: str) -> bool:
    deleted, _ = Membership.objects.filter(
        organization__external_id=org_external_id, user__username=_idp_username(subject)
    ).delete()
    return bool(deleted)


@transaction.atomic
def organization_plan_set(
    *,
    organization: Organization,
    plan: str,
    status: str,
    changed_at,
    customer_id: str = "",
    subscription_id: str = "",
) -> bool:
    """Apply a billing change unless a later one was applied already (provider events may
    arrive out of order). Returns whether anything changed."""
    org = Organization.objects.select_for_update().get(pk=organization.pk)
    if org.plan_changed_at and changed_at < org.plan_changed_at:
        return False
    org.plan, org.billing_status, org.plan_changed_at = plan, status[:40], changed_at
    if subscription_id:
        org.billing_subscription_id = subscription_id[:200]
    if customer_id and not org.billing_customer_id:
        org.billing_customer_id = customer_id[:200]
    org.save(
        update_fields=[
            "plan",
            "billing_status",
            "plan_changed_at",
            "billing_subscription_id",
            "billing_customer_id",
        ]
    )
    return True
