"""Tags and campaigns."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from apps.core.errors import (
    Conflict,
    InvalidSubject,
)

from ..models import (
    Campaign,
    Tag,
)


def _tag_name_taken(organization, name: str, exclude_pk=None) -> bool:
    qs = Tag.objects.for_organization(organization).filter(name__iexact=name)
    return qs.exclude(pk=exclude_pk).exists() if exclude_pk else qs.exists()


def tag_create(*, organization, name: str, color: str = "") -> Tag:
    name = name.strip()
    if _tag_name_taken(organization, name):
        raise Conflict(f"A tag named '{name}' already exists.", problems={"name": "Already exists."})
    try:
        with transaction.atomic():
            return Tag.objects.create(organization=organization, name=name, color=color)
    except IntegrityError:
        raise Conflict(
            f"A tag named '{name}' already exists.", problems={"name": "Already exists."}
        ) from None


def tag_update(*, tag: Tag, name: str | None = None, color: str | None = None) -> Tag:
    if name is not None:
        name = name.strip()
        if _tag_name_taken(tag.organization_id, name, exclude_pk=tag.pk):
            raise Conflict(f"A tag named '{name}' already exists.", problems={"name": "Already exists."})
        tag.name = name
    if color is not None:
        tag.color = color
    try:
        with transaction.atomic():
            tag.save()
    except IntegrityError:
        raise Conflict(
            f"A tag named '{name}' already exists.", problems={"name": "Already exists."}
        ) from None
    return tag


def tag_delete(*, tag: Tag) -> None:
    tag.delete()


def _check_dates(starts_on, ends_on) -> None:
    if starts_on and ends_on and ends_on < starts_on:
        raise InvalidSubject("endsOn is before startsOn.", "ends_on", "Must be on or after startsOn.")


def campaign_create(
    *, organization, name: str, description: str = "", starts_on=None, ends_on=None, color: str = ""
) -> Campaign:
    _check_dates(starts_on, ends_on)
    return Campaign.objects.create(
        organization=organization,
        name=name.strip(),
        description=description,
        starts_on=starts_on,
        ends_on=ends_on,
        color=color,
    )


def campaign_update(*, campaign: Campaign, **fields) -> Campaign:
    allowed = {"name", "description", "starts_on", "ends_on", "color"}
    for key, value in fields.items():
        if key not in allowed:
            raise TypeError(key)
        setattr(campaign, key, value)
    _check_dates(campaign.starts_on, campaign.ends_on)
    campaign.save()
    return campaign


def campaign_delete(*, campaign: Campaign) -> None:
    campaign.delete()
