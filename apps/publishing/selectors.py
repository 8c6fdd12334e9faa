"""Organization-scoped reads for publishing."""

from __future__ import annotations

from apps.brands.models import Brand
from apps.core import ids
from apps.core.errors import NoTargets, UnknownReference

from .models import Publication


def publication_rows():
    """Publications of every organization as they are presented (with their profile): a view's
    `queryset`, which the family base scopes to the caller's."""
    return Publication.objects.select_related("profile")


def brand_for_connect(*, organization, brand_id: str | None) -> Brand | None:
    """The brand a new profile joins; another organization's brand is just unknown."""
    if not brand_id:
        return None
    pk = ids.parse(brand_id, "brand")
    brand = Brand.objects.for_organization(organization).filter(pk=pk).first() if pk else None
    if brand is None:
        raise UnknownReference("brand")
    return brand


def profiles_for_publishing(
    *, organization, content, raw_ids, cross_post: bool = False, kind: str = "profile"
) -> list:
    """The profiles named by id (each must be this organization's, else an UnknownReference),
    or with crossPost and no ids, every connected profile of the content's brand on its platforms."""
    from apps.profiles.models import SocialProfile

    qs = SocialProfile.objects.for_organization(organization)
    if not raw_ids:
        if cross_post:
            found = list(qs.filter(brand=content.brand, platform__in=content.platforms, connected=True))
            if found:
                return found
        raise NoTargets("Give the profiles to publish to.", "profile", "At least one profile id is required.")
    pks = [ids.parse(raw, kind) for raw in raw_ids]
    by_pk = {p.pk: p for p in qs.filter(pk__in=[pk for pk in pks if pk])}
    unknown = [str(raw) for raw, pk in zip(raw_ids, pks, strict=True) if pk not in by_pk]
    if unknown:
        raise UnknownReference("profile", unknown)
    # in the order given, each once (every id is known here: none is None)
    return list({pk: by_pk[pk] for pk in pks if pk is not None}.values())


def sandbox_post_page(*, platform: str, username: str, external_id: str):
    """The sandbox post behind `/sandbox/<platform>/<user>/<id>` with its profile, and the
    variant it was published from (for its crop), or (None, None)."""
    from apps.content.models import Variant

    from .models import SandboxPost

    post = (
        SandboxPost.objects.select_related("profile")
        .filter(platform=platform, external_id=external_id, profile__username=username)
        .first()
    )
    if post is None:
        return None, None
    pub = (
        Publication.objects.filter(pk=post.reference).only("content_id").first()
        if _is_uuid(post.reference)
        else None
    )
    variant = Variant.objects.filter(content_id=pub.content_id, platform=platform).first() if pub else None
    return post, variant


def _is_uuid(value: str) -> bool:
    import uuid

    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True
