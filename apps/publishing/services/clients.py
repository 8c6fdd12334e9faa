"""The platform client for a profile and what to post for a publication."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, BinaryIO, TypedDict, cast

from django.db.models.fields.files import FieldFile

from apps.content.models import Variant
from apps.content.selectors import current_media, current_media_for, media_for_ratio
from apps.core.storage import absolute_url
from apps.profiles.models import SocialProfile

from ..models import Publication
from ..platforms.base import (
    MediaItem,
    PlatformClient,
    PlatformError,
    PostRequest,
)

if TYPE_CHECKING:
    from apps.media.models import MediaAsset


# --- clients --------------------------------------------------------------------------------


def client_for(profile: SocialProfile) -> PlatformClient:
    """The sandbox publisher, or the platform's real client with the decrypted token."""
    from ..oauth_backends import (
        APP_PASSWORD_PLATFORMS,
        credential_settings,
        is_real,
        platform_client,
        sandbox_allowed,
    )
    from ..platforms.sandbox import SandboxClient

    if profile.sandbox:
        if not sandbox_allowed(profile.platform):
            raise PlatformError(
                f"This is a sandbox profile (its posts go nowhere) and the sandbox is not offered for "
                f"{profile.platform} on this server: connect the account for real.",
                code="sandbox_not_allowed",
            )
        return SandboxClient(profile=profile)
    if profile.platform in APP_PASSWORD_PLATFORMS:  # Bluesky: the session on the account's own PDS
        from ..bluesky import client_of

        return client_of(profile)
    if not is_real(profile.platform):  # never silently through the sandbox
        raise PlatformError(
            f"{profile.platform} is not configured on this server: the operator must set "
            f"{' and '.join(credential_settings(profile.platform))}.",
            code="platform_not_configured",
        )
    from ..crypto import decrypt

    return platform_client(
        profile.platform,
        access_token=decrypt(profile.access_token_enc),
        account_id=profile.external_id,
        # Facebook: the User access token kept at connect (Page video uploads start with it)
        user_token=decrypt(profile.secret_enc)
        if profile.platform == "facebook" and profile.secret_enc
        else "",
    )


def post_request_for(publication: Publication, context: _ChunkContext | None = None) -> PostRequest:
    """What to post; `context` holds the chunk's variants and media (read once per chunk)."""
    from apps.platforms.captions import compose_caption

    content = publication.content
    if context is not None:
        variant = context["variants"].get((content.pk, publication.profile.platform))
        assets = context["media"].get(content.pk, [])
    else:
        variant = content.variants.filter(platform=publication.profile.platform).first()
        assets = current_media(content)
    if variant is None:
        raise PlatformError(f"The content has no {publication.profile.platform} variant.", code="no_variant")
    media = []
    # the picture made for this platform's ratio (and the shared uploads), not the others'
    for asset in media_for_ratio(list(assets), variant.ratio):
        storage_file = asset.file

        def loader(f: FieldFile = storage_file) -> bytes:
            with f.open("rb") as fh:
                data: bytes = fh.read()
            return data

        def opener(f: FieldFile = storage_file) -> BinaryIO:
            # a file of its own (FieldFile.open reuses one handle): videos are sent chunk by chunk
            return cast(BinaryIO, f.storage.open(str(f.name), "rb"))

        media.append(
            MediaItem(
                kind="video" if asset.media_type == "video" else "image",
                url=absolute_url(None, asset.file) or "",
                content_type=asset.content_type,
                width=asset.width or 0,
                height=asset.height or 0,
                seconds=asset.duration,
                alt_text=variant.alt_text,
                loader=loader,
                opener=opener,
                size=asset.size or None,
                thumbnail_url=absolute_url(None, asset.thumbnail) or "",
                generated=asset.kind == "generated",
            )
        )
    tiktok = publication.options.get("tiktok")
    if publication.profile.platform == "tiktok" and not (
        isinstance(tiktok, dict) and tiktok.get("privacyLevel")
    ):
        raise PlatformError(
            "This TikTok post carries no privacy level chosen by the creator, and TikTok has no "
            "default: schedule it again with the TikTok choices (privacyLevel, consent).",
            code="privacy_level_missing",
        )
    first_comment = publication.options.get("firstComment") or variant.first_comment
    caption = compose_caption(variant.caption, variant.hashtags)
    if "://" in caption or "://" in first_comment:  # tracked links (README "Tracked links")
        from ..links import links_track, links_track_fitting

        caption = links_track_fitting(
            text=caption, publication=publication, post_type=content.post_type, media_type=content.media_type
        )
        first_comment = links_track(text=first_comment, publication=publication)
    return PostRequest(
        caption=caption,
        media=media,
        post_type=content.post_type,
        title=variant.title,
        first_comment=first_comment,
        sounds=list(variant.sounds),
        privacy=publication.profile.settings.get("defaultVisibility", "public"),
        reference=str(publication.pk),
        ai_generated=content.ai_disclosure,
        ai_generated_by_person=content.ai_disclosure_overridden,
        # when the publication was made: a stable seed (Bluesky's record key is derived from it)
        options={
            **publication.options,
            "_created_at": publication.created_at.isoformat(),
            # a post made before this is not ours (stories are found by time and kind alone)
            "_not_before": publication.scheduled_for.isoformat(),
            # what an earlier attempt left to pick up (PlatformError.resume)
            "_resume": dict((publication.platform_state or {}).get("resume") or {}),
        },
    )


class _ChunkContext(TypedDict):
    """A chunk's variants by (content, platform) and shown media by content."""

    variants: dict[tuple[uuid.UUID, str], Variant]
    media: dict[uuid.UUID, list[MediaAsset]]


def _chunk_context(pubs: list[Publication]) -> _ChunkContext:
    """The chunk's variants and media, read once for all its contents."""
    content_ids = {p.content_id for p in pubs}
    if not content_ids:
        return {"variants": {}, "media": {}}
    variants = {(v.content_id, v.platform): v for v in Variant.objects.filter(content_id__in=content_ids)}
    media: dict[uuid.UUID, list[MediaAsset]] = {}
    for asset in current_media_for(content_ids):
        media.setdefault(asset.content_id, []).append(asset)
    return {"variants": variants, "media": media}
