"""Each platform variant of a content item drawn as its platform shows it, for the content
page and the outside approver's page (apps.platforms.preview + templates/previews/post.html)."""

from __future__ import annotations

from .models import Content


def previews_for(content: Content, variants: list, media: list) -> dict:
    """Each variant drawn as its platform shows it (apps.platforms.preview), under the profile
    it goes out on: the content's own profile, else the organization's profile on that
    platform, else the brand's name."""
    from apps.platforms.preview import MediaView, post_preview
    from apps.profiles.models import SocialProfile

    profiles: dict[str, SocialProfile] = {}
    for row in SocialProfile.objects.filter(organization_id=content.organization_id).order_by("created_at"):
        profiles.setdefault(row.platform, row)
    if content.profile_id:
        own = SocialProfile.objects.filter(pk=content.profile_id).first()
        if own is not None:
            profiles[own.platform] = own
    from .selectors import media_for_ratio

    def views_of(assets: list) -> list:
        return [
            MediaView(
                url=m.file.url,
                kind="video" if m.media_type == "video" else "image",
                poster=m.thumbnail.url if m.thumbnail else "",
            )
            for m in assets
        ]

    out = {}
    for v in variants:
        # each platform's own picture (drawn for its ratio) and the shared uploads
        views = views_of(media_for_ratio(list(media), v.ratio or ""))
        shown_as = profiles.get(v.platform)
        out[v.platform] = post_preview(
            platform=v.platform,
            caption=v.caption or "",
            hashtags=v.hashtags or [],
            title=v.title or "",
            first_comment=v.first_comment or "",
            alt_text=v.alt_text or "",
            ratio=v.ratio or "",
            media=views,
            author_name=(shown_as.display_name or shown_as.username)
            if shown_as
            else str(content.brand or ""),
            handle=shown_as.username if shown_as else "",
            avatar_url=shown_as.picture_url if shown_as else "",
            post_type=content.post_type or "feed",
        )
    return out


def content_previews(content: Content) -> list:
    """The previews of `content`'s variants (its current media), in platform order."""
    from apps.media.models import MediaAsset

    media = list(
        MediaAsset.objects.filter(content=content, kind__in=("generated", "upload")).order_by(
            "position", "created_at"
        )
    )
    variants = list(content.variants.order_by("platform"))
    previews = previews_for(content, variants, media)
    return [previews[v.platform] for v in variants]
