"""Outcomes that are not known: reconciling with the platform, and a person's answer."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from apps.content.models import Content
from apps.core.errors import InvalidTransition
from apps.profiles.models import SocialProfile

from ..models import Publication
from ..platforms.base import (
    OutcomeUnknown,
    PlatformClient,
    PlatformError,
    PostRequest,
)
from ..post_urls import post_link_parse
from .outcomes import (
    MAX_ATTEMPTS,
    _Attempt,
    _publication_updated,
    _Published,
    _Retry,
    _sync_contents,
    _Unknown,
)


def _unknown(pub: Publication, error: PlatformError) -> _Attempt:
    """The outcome is not known: retried later (reconciling first); after MAX_ATTEMPTS, or at
    once when the profile's grant cannot read its posts back, the publication is `unknown`
    for a person to confirm in the admin (never failed while it may exist, never re-posted)."""
    if not can_reconcile(pub.profile):
        error.message = (
            f"{error.message} (the post may exist and this profile's grant cannot read its posts "
            f"to check: confirm it in the admin)"
        )
        return _Unknown(pub, error=error)
    if pub.attempts < MAX_ATTEMPTS:
        return _Retry(pub, error=error, keep_unknown=True)
    error.message = (
        f"{error.message} (outcome still unknown after {pub.attempts} attempts: check the platform)"
    )
    return _Unknown(pub, error=error)


def can_reconcile(profile: SocialProfile) -> bool:
    """Whether the profile's grant lets its client find a post whose create call got no answer
    (platforms.yaml `features.<platform>.reconciliation`; LinkedIn's is a partner permission)."""
    from apps.platforms.features import feature_platform, feature_scopes, features_allowed

    from ..oauth_backends import is_real

    if (
        profile.sandbox
        or not is_real(profile.platform)
        or "reconciliation" not in feature_scopes(feature_platform(profile.platform, profile.external_id))
    ):
        return True
    return any(
        f["allowed"]
        for f in features_allowed(
            feature_platform(profile.platform, profile.external_id), profile.token_scopes or ""
        )
        if f["feature"] == "reconciliation"
    )


def _reconciled(pub: Publication, client: PlatformClient, req: PostRequest) -> _Attempt | None:
    """After an attempt whose outcome is unknown: the post the platform already has, an
    unknown outcome when the grant cannot look, or None to post it."""
    if not can_reconcile(pub.profile):
        return _unknown(pub, OutcomeUnknown("An earlier attempt may have posted it."))
    unfindable = client.unfindable_reason(req)
    if unfindable:
        return _Unknown(pub, error=OutcomeUnknown(f"An earlier attempt may have posted it ({unfindable})."))
    try:
        found = client.find_published(req)
    except PlatformError as exc:
        if exc.scope_missing:  # the grant cannot read posts back
            return _Unknown(pub, error=exc)
        raise
    if found is not None:
        return _Published(pub, result=found)
    return None


@transaction.atomic
def publication_resolve(
    *, publication: Publication, posted: bool, url: str = "", external_id: str = ""
) -> Publication:
    """A person's answer for an `unknown` publication: it went out, or it did not (back on
    schedule, due now, without reconciling).

    A post that went out needs its link, an https link on the platform's own site
    (`post_urls.post_link_parse`, ValidationFailed otherwise); the platform's post id is read
    from it when the link carries one (an explicit `external_id` wins; with neither, the handle
    the publication already had stays)."""

    # the global lock order: the content before its publication
    Content.objects.select_for_update().filter(pk=publication.content_id).values_list("pk", flat=True).first()
    pub = Publication.objects.select_for_update(of=("self",)).select_related("profile").get(pk=publication.pk)
    if pub.status != Publication.UNKNOWN:
        raise InvalidTransition(
            f"Only a publication whose outcome is unknown can be confirmed; this one is {pub.status}.",
            {"status": pub.status},
        )
    now = timezone.now()
    if posted:
        link = post_link_parse(
            platform=pub.profile.platform,
            url=url,
            account=pub.profile.external_id,
            sandbox=pub.profile.sandbox,
        )
        pub.status, pub.published_at, pub.url = Publication.PUBLISHED, now, link.url
        pub.external_id = external_id or link.external_id or pub.external_id
        pub.last_error, pub.error_code = "", ""
    else:
        pub.status, pub.due_at, pub.attempts = Publication.SCHEDULED, now, 0
    pub.outcome_unknown, pub.lease_until = False, None
    pub.save(
        update_fields=[
            "status",
            "published_at",
            "url",
            "external_id",
            "last_error",
            "error_code",
            "due_at",
            "attempts",
            "outcome_unknown",
            "lease_until",
            "updated_at",
        ]
    )
    if posted:
        _publication_updated(pub)
        _sync_contents([pub.content_id])
    return pub
