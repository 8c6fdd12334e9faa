"""Which organizations a staff user of the admin console may see: one rule for every admin
page, custom admin view and the staff websocket (issue 28).

Superusers see every organization. Any other staff user sees only the organizations they
belong to (a ``Membership``, whatever its role); a staff user who belongs to none sees none.
Being staff and holding Django permissions says *what* they may do in the admin; membership
says *whose* rows they may do it to. Another organization's object is a 404, as in the API.
"""

from __future__ import annotations

import uuid
from typing import TypeVar

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Model, QuerySet

from .models import Organization

M = TypeVar("M", bound=Model)

StaffUser = AbstractBaseUser | AnonymousUser


def sees_every_organization(user: StaffUser) -> bool:
    """A superuser (active staff) sees every organization."""
    return bool(getattr(user, "is_active", False) and getattr(user, "is_superuser", False))


def staff_organization_ids(user: StaffUser) -> QuerySet[Organization, uuid.UUID] | None:
    """The ids of the organizations ``user`` may see in the admin, as a subquery; ``None``
    means every organization (a superuser)."""
    if sees_every_organization(user):
        return None
    if user.pk is None or not getattr(user, "is_active", False) or not getattr(user, "is_staff", False):
        return Organization.objects.none().values_list("pk", flat=True)
    return Organization.objects.filter(memberships__user_id=user.pk).values_list("pk", flat=True)


def staff_organizations(user: StaffUser) -> QuerySet[Organization]:
    """The organizations ``user`` may see, by name."""
    allowed = staff_organization_ids(user)
    orgs = Organization.objects.order_by("name")
    return orgs if allowed is None else orgs.filter(pk__in=allowed)


def staff_scope(queryset: QuerySet[M], user: StaffUser, *, field: str = "organization") -> QuerySet[M]:
    """``queryset`` narrowed to the rows of the organizations ``user`` may see; ``field`` is
    the path from the row to its organization (``"pk"`` for organizations themselves)."""
    allowed = staff_organization_ids(user)
    if allowed is None:
        return queryset
    lookup = "pk__in" if field == "pk" else f"{field}__in"
    return queryset.filter(**{lookup: allowed})


def staff_sees(user: StaffUser, organization_id: uuid.UUID | None) -> bool:
    """May ``user`` see rows of this organization?"""
    allowed = staff_organization_ids(user)
    if allowed is None:
        return True
    return organization_id is not None and allowed.filter(pk=organization_id).exists()
