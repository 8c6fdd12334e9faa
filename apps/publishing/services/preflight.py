"""The pre-flight check: whether each target profile would accept a post, now and at its
scheduled time, with every problem named (machine code, the subject, the platform's rule and
where that rule is written).

One check for both API families, the admin and scheduling (which refuses what would fail,
unless an admin forces it). What it holds a post against:

- the text in each platform's own unit (``apps.platforms.validation`` over ``rules.py``);
- the media: type, size, duration, aspect ratio, frame rate and codec against the platform
  data (``platforms.yaml`` ``post_types``), as the upload's probe read them;
- the profile's grant: first comment and alt text need their permissions (``features``);
- the profile's connection and its token's expiry before the scheduled time;
- TikTok's ``creator_info``: the creator's privacy options, longest video and disabled
  interactions;
- the operator's app-level gates (audited project, access tier: ``apps.platforms.gates``).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from django.utils import timezone

from apps.core.errors import ApplicationError, Conflict, PermissionDenied
from apps.platforms.features import feature_platform, features_allowed
from apps.platforms.gates import tiktok_privacy_refusal, visibility_refusal
from apps.platforms.rules import (
    UnsupportedFormat,
    get_rules,
    load_platforms_yaml,
    normalize_platform,
    ratio_value,
)
from apps.platforms.validation import validate_variant
from apps.profiles.models import SocialProfile

GATES_SOURCES = {
    "youtube": "https://developers.google.com/youtube/v3/docs/videos/insert",
    "tiktok": "https://developers.tiktok.com/doc/content-sharing-guidelines",
    "pinterest": "https://developers.pinterest.com/docs/developer-tools/sandbox/",
    "x": "https://docs.x.com/x-api/getting-started/about-x-api",
}
CREATOR_INFO_SOURCE = "https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info"
#: our own rules (a connection, a token) are written in the README
OWN_SOURCE = "postforge:README#pre-flight-check"

#: container or image format names of platforms.yaml, per content type
FORMAT_NAMES = {
    "image/jpeg": "jpeg",
    "image/png": "png",
    "image/webp": "webp",
    "image/gif": "gif",
    "video/mp4": "mp4",
    "video/quicktime": "mov",
    "video/webm": "webm",
}
#: the same format under another name in platforms.yaml
_FORMAT_ALIASES = {"jpg": "jpeg", "m4v": "mp4"}
#: codec names the probe (PyAV) gives, as platforms.yaml writes them
CODEC_NAMES = {"h264": "h264", "hevc": "hevc", "h265": "hevc", "vp8": "vp8", "vp9": "vp9", "av1": "av1"}


class Problem(TypedDict):
    code: str
    subject: str
    rule: str
    source: str


class ProfileReport(TypedDict):
    profileId: str
    platform: str
    ok: bool
    problems: list[Problem]


@dataclass(frozen=True)
class MediaFacts:
    """What the check needs of one media file."""

    media_type: str
    content_type: str
    size: int
    width: int | None
    height: int | None
    duration: float | None
    codec: str | None
    frame_rate: float | None


@dataclass(frozen=True)
class Subject:
    """What would be posted: the content's (or a draft's) platforms, format, text per platform
    and media."""

    platforms: Sequence[str]
    post_type: str
    media_type: str
    variants: Mapping[str, Mapping[str, Any]]
    media: Sequence[MediaFacts] = ()
    #: the AI-generation flag of the media (YouTube's containsSyntheticMedia / TikTok's is_aigc)
    generated_media: bool = False


@dataclass
class _Report:
    profile: SocialProfile
    problems: list[Problem] = field(default_factory=list)

    def add(self, code: str, subject: str, rule: str, source: str) -> None:
        self.problems.append({"code": code, "subject": subject, "rule": rule, "source": source})


class PreflightFailed(Conflict):
    """The post would be refused by a platform (409 in both families, with the pre-flight report)."""


def platform_source(platform: str) -> str:
    """The first document ``platforms.yaml`` cites for the platform (where its rules are read)."""
    entry = (load_platforms_yaml().get("platforms") or {}).get(platform) or {}
    sources = entry.get("source") or []
    return str(sources[0]) if sources else f"platforms.yaml: platforms.{platform}"


def media_facts(asset: Any) -> MediaFacts:
    meta = asset.metadata or {}
    return MediaFacts(
        media_type=str(asset.media_type),
        content_type=str(asset.content_type),
        size=int(asset.size or 0),
        width=asset.width,
        height=asset.height,
        duration=asset.duration,
        codec=meta.get("codec"),
        frame_rate=meta.get("frame_rate"),
    )


def subject_of_content(content: Any) -> Subject:
    """The content as it stands: its variants and its current media."""
    from apps.content.selectors import current_media

    variants = {
        v.platform: {
            "caption": v.caption,
            "hashtags": v.hashtags,
            "firstComment": v.first_comment,
            "altText": v.alt_text,
            "title": v.title,
            "sounds": v.sounds,
        }
        for v in content.variants.all()
    }
    assets = list(current_media(content))
    return Subject(
        platforms=list(content.platforms),
        post_type=content.post_type,
        media_type=content.media_type,
        variants=variants,
        media=[media_facts(a) for a in assets],
        # the content's AI flag (issue 32) as publishing reads it (PostRequest.media_made_with_ai)
        generated_media=content.ai_disclosure in ("media", "both")
        or (not content.ai_disclosure_overridden and any(a.kind == "generated" for a in assets)),
    )


def draft_subject(
    *,
    organization: Any,
    platforms: Sequence[str],
    post_type: str = "feed",
    media_type: str = "image",
    text: str = "",
    variants: Mapping[str, Mapping[str, Any]] | None = None,
    media_ids: Sequence[str] = (),
) -> Subject:
    """A post not yet created: ``text`` for every platform without its own entry in ``variants``,
    and the organization's uploaded media by id (another organization's id is unknown)."""
    from apps.core import ids
    from apps.core.errors import InvalidSubject, UnknownReference
    from apps.media.models import MediaAsset

    given: dict[str, dict[str, Any]] = {}
    for key, value in (variants or {}).items():
        try:
            given[normalize_platform(key)] = dict(value)
        except ValueError:
            raise InvalidSubject(
                "A variant names an unknown platform.", "variants", f"Unknown platform: {str(key)[:40]!r}."
            ) from None
    stray = sorted(set(given) - set(platforms))
    if stray:
        raise InvalidSubject(
            "A variant names a platform no target profile is on.",
            "variants",
            f"No target profile on: {', '.join(stray)}.",
        )
    out = {p: given.get(p) or {"caption": text} for p in platforms}
    pks = [ids.parse(raw, ("media", "asset")) for raw in media_ids]
    found = {
        a.pk: a
        for a in MediaAsset.objects.for_organization(organization).filter(pk__in=[p for p in pks if p])
    }
    missing = [str(raw) for raw, pk in zip(media_ids, pks, strict=True) if pk not in found]
    if missing:
        raise UnknownReference("media", missing)
    assets = [found[pk] for pk in pks if pk is not None]
    return Subject(
        platforms=list(platforms),
        post_type=post_type,
        media_type=media_type,
        variants=out,
        media=[media_facts(a) for a in assets],
        generated_media=any(a.kind == "generated" for a in assets),
    )


# --- the check ---------------------------------------------------------------------------------


def content_preflight(
    *,
    subject: Subject,
    profiles: Sequence[SocialProfile],
    scheduled_for: datetime.datetime | None = None,
    options: Mapping[str, Any] | None = None,
    creator_info: Any = None,
) -> list[ProfileReport]:
    """Per target profile, whether the post would be accepted now and at ``scheduled_for``
    (now when None). ``creator_info`` reads TikTok's creator_info for a profile (the real read
    by default; a fault there is itself a problem, not an error)."""
    options = dict(options or {})
    now = timezone.now()
    when = scheduled_for or now
    reports: list[ProfileReport] = []
    for profile in profiles:
        report = _Report(profile)
        platform = normalize_platform(profile.platform)
        source = platform_source(platform)
        if platform not in subject.platforms:
            report.add(
                "platform_not_targeted",
                "profile",
                f"{profile.username} is on {platform}; this content was made for {', '.join(subject.platforms)}.",
                OWN_SOURCE,
            )
        else:
            first_comment = _check_text(report, subject, platform, options, source)
            if not profile.sandbox:  # the sandbox publisher takes any media the upload accepted
                _check_media(report, subject, platform, source)
            _check_features(report, subject, profile, first_comment, source)
        _check_connection(report, profile, now, when)
        _check_gates(report, profile, options)
        if platform == "tiktok" and platform in subject.platforms:
            _check_tiktok(report, subject, profile, options, creator_info)
        reports.append(
            {
                "profileId": str(profile.pk),
                "platform": platform,
                "ok": not report.problems,
                "problems": report.problems,
            }
        )
    return reports


def _check_text(
    report: _Report, subject: Subject, platform: str, options: Mapping[str, Any], source: str
) -> str:
    """The variant's text fields in the platform's unit; the first comment that will be posted."""
    variant = subject.variants.get(platform)
    if variant is None:
        report.add(
            "variant_missing", "variants", f"The content has no {platform} variant to post.", OWN_SOURCE
        )
        return ""
    fields = dict(variant)
    override = options.get("firstComment")
    if isinstance(override, str) and override:
        fields["firstComment"] = override
    try:
        errors = validate_variant(
            platform, fields, post_type=subject.post_type, media_type=subject.media_type
        )
    except ValueError as exc:
        report.add("format_unsupported", "postType", str(exc), source)
        return ""
    for name, message in errors.items():
        code = "format_unsupported" if name == "mediaType" else "text_rule"
        report.add(code, name if name != "mediaType" else "mediaType", message, source)
    return str(fields.get("firstComment") or "")


def _format_entry(platform: str, post_type: str, media_type: str) -> tuple[str, Mapping[str, Any]] | None:
    """The platform's own format (its ``post_types`` key) and its platforms.yaml entry."""
    try:
        native = get_rules(platform).format_for(post_type, media_type).native
    except (UnsupportedFormat, ValueError):
        return None
    entry = ((load_platforms_yaml().get("platforms") or {}).get(platform) or {}).get("post_types") or {}
    return native, dict(entry.get(native) or {})


def _yaml(fmt: Mapping[str, Any], media_type: str, key: str) -> Any:
    nested = fmt.get(media_type)
    value = nested[key] if isinstance(nested, dict) and key in nested else fmt.get(key)
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB" if n >= 1024 * 1024 else f"{n} bytes"


def _check_media(report: _Report, subject: Subject, platform: str, source: str) -> None:
    found = _format_entry(platform, subject.post_type, subject.media_type)
    if found is None:
        return  # the text check named the unsupported format
    native, fmt = found
    where = f"platforms.{platform}.post_types.{native}"
    for i, media in enumerate(subject.media):
        name = f"media[{i}]"
        kind = media.media_type
        formats = (
            _yaml(fmt, kind, "formats")
            if kind == "image"
            else (_yaml(fmt, kind, "containers") or _yaml(fmt, kind, "formats"))
        )
        fmt_name = FORMAT_NAMES.get(media.content_type, media.content_type)
        if isinstance(formats, list) and fmt_name not in {
            _FORMAT_ALIASES.get(str(f).lower(), str(f).lower()) for f in formats
        }:
            report.add(
                "media_type",
                name,
                f"{platform} {native} takes {', '.join(map(str, formats))}, not {fmt_name} ({where}.formats)",
                source,
            )
        cap = _yaml(fmt, kind, "max_bytes") or _yaml(fmt, kind, "max_bytes_each")
        if isinstance(cap, int) and media.size > cap:
            report.add(
                "media_size",
                name,
                f"at most {_mb(cap)} on {platform} {native}; this is {_mb(media.size)}",
                source,
            )
        seconds = _yaml(fmt, kind, "video_seconds") if kind == "video" else None
        if isinstance(seconds, list) and len(seconds) == 2 and media.duration is not None:
            low, high = float(seconds[0]), float(seconds[1])
            if not low <= media.duration <= high:
                report.add(
                    "media_duration",
                    name,
                    f"{platform} {native} videos last {low:g}-{high:g} s; this one {media.duration:.1f} s",
                    source,
                )
        _check_ratio(report, fmt, media, name, f"{platform} {native}", source)
        fps = _yaml(fmt, kind, "fps_range") if kind == "video" else None
        if (
            isinstance(fps, list)
            and len(fps) == 2
            and media.frame_rate
            and not float(fps[0]) <= float(media.frame_rate) <= float(fps[1])
        ):
            report.add(
                "media_frame_rate",
                name,
                f"{platform} {native} takes {fps[0]}-{fps[1]} frames per second; this is {media.frame_rate:g}",
                source,
            )
        codecs = _yaml(fmt, kind, "video_codecs") if kind == "video" else None
        if isinstance(codecs, list) and media.codec:
            allowed = {CODEC_NAMES.get(str(c).lower(), str(c).lower()) for c in codecs}
            if CODEC_NAMES.get(media.codec.lower(), media.codec.lower()) not in allowed:
                report.add(
                    "media_codec",
                    name,
                    f"{platform} {native} takes {', '.join(map(str, codecs))} video; this is {media.codec}",
                    source,
                )


def _check_ratio(
    report: _Report, fmt: Mapping[str, Any], media: MediaFacts, name: str, what: str, source: str
) -> None:
    if not media.width or not media.height:
        return
    rng = _yaml(fmt, media.media_type, "aspect_ratio_range")
    if not (isinstance(rng, list) and len(rng) == 2):
        return
    low, high = ratio_value(str(rng[0])), ratio_value(str(rng[1]))
    ratio = media.width / media.height
    if not low - 0.005 <= ratio <= high + 0.005:
        report.add(
            "media_aspect_ratio",
            name,
            f"{what} takes width:height from {rng[0]} to {rng[1]}; this is {media.width}x{media.height}",
            source,
        )


def _check_features(
    report: _Report, subject: Subject, profile: SocialProfile, first_comment: str, source: str
) -> None:
    """First comment and alt text need their permissions in the profile's grant (a grant that
    names no scopes, or a sandbox profile, is not judged)."""
    if profile.sandbox or not profile.token_scopes.strip():
        return
    key = feature_platform(profile.platform, profile.external_id)
    allowed = {f["feature"]: f for f in features_allowed(key, profile.token_scopes)}
    variant = subject.variants.get(normalize_platform(profile.platform)) or {}
    wanted = {
        "first_comment": bool(first_comment.strip()),
        "alt_text": bool(str(variant.get("altText") or "").strip()),
    }
    for feature, used in wanted.items():
        info = allowed.get(feature)
        if used and info is not None and not info["allowed"]:
            report.add(
                "feature_not_granted",
                "firstComment" if feature == "first_comment" else "altText",
                f"{profile.username}'s grant lacks {', '.join(info['missingScopes'])} "
                f"({feature.replace('_', ' ')}); reconnect the profile to grant it",
                source,
            )


def _check_connection(
    report: _Report, profile: SocialProfile, now: datetime.datetime, when: datetime.datetime
) -> None:
    from apps.profiles.services import token_refreshable

    if not profile.connected or profile.token_status != "valid":
        state = profile.token_status if profile.connected else "disconnected"
        detail = f" ({profile.token_error})" if profile.token_error else ""
        report.add(
            "profile_disconnected",
            "profile",
            f"{profile.username} is {state}{detail}: reconnect it",
            OWN_SOURCE,
        )
        return
    expires = profile.token_expires_at
    if profile.sandbox or expires is None or token_refreshable(profile):
        return
    if expires <= now:
        report.add(
            "token_expired",
            "profile",
            f"{profile.username}'s {profile.platform} token expired on {expires:%Y-%m-%d %H:%M} UTC: reconnect it",
            OWN_SOURCE,
        )
    elif when >= expires:
        report.add(
            "token_expires_before_schedule",
            "scheduledFor",
            f"{profile.username}'s {profile.platform} token expires on {expires:%Y-%m-%d %H:%M} UTC, before the "
            "scheduled time, and cannot be renewed without you: reconnect, then schedule",
            OWN_SOURCE,
        )


def _check_gates(report: _Report, profile: SocialProfile, options: Mapping[str, Any]) -> None:
    visibility = str(profile.settings.get("defaultVisibility", "public"))
    refusal = visibility_refusal(profile.platform, visibility, sandbox=profile.sandbox)
    if refusal:
        report.add("app_gate", "defaultVisibility", refusal, GATES_SOURCES.get(profile.platform, OWN_SOURCE))


def _check_tiktok(
    report: _Report, subject: Subject, profile: SocialProfile, options: Mapping[str, Any], creator_info: Any
) -> None:
    from .tiktok import tiktok_creator_info

    chosen = options.get("tiktok")
    chosen = chosen if isinstance(chosen, Mapping) else {}
    level = chosen.get("privacyLevel")
    if not level:
        report.add(
            "tiktok_privacy_level",
            "tiktok.privacyLevel",
            "TikTok has no default privacy level: choose one of the creator's privacy_level_options",
            CREATOR_INFO_SOURCE,
        )
    elif refusal := tiktok_privacy_refusal(str(level), sandbox=profile.sandbox):
        report.add("app_gate", "tiktok.privacyLevel", refusal, GATES_SOURCES["tiktok"])
    if chosen.get("consent") is not True:
        report.add(
            "tiktok_consent",
            "tiktok.consent",
            "TikTok asks for the creator's explicit consent before each post",
            "https://developers.tiktok.com/doc/content-sharing-guidelines/",
        )
    if not profile.connected or profile.token_status != "valid":
        return  # said above; TikTok cannot be asked
    try:
        info = (creator_info or tiktok_creator_info)(profile=profile)
    except ApplicationError as exc:
        report.add("tiktok_creator_info_unavailable", "profile", exc.message, CREATOR_INFO_SOURCE)
        return
    offered = list(info["privacy_level_options"])
    if level and level not in offered:
        report.add(
            "tiktok_privacy_level",
            "tiktok.privacyLevel",
            f"{profile.username} can post only as {', '.join(offered) or 'nothing'} now, not {level}",
            CREATOR_INFO_SOURCE,
        )
    longest = info["max_video_post_duration_sec"]
    for i, media in enumerate(subject.media):
        if media.media_type == "video" and longest and media.duration and media.duration > longest:
            report.add(
                "tiktok_duration",
                f"media[{i}]",
                f"{profile.username} may post videos of at most {longest} s; this one lasts {media.duration:.1f} s",
                CREATOR_INFO_SOURCE,
            )
    for toggle, disabled in (
        ("disableComment", info["comment_disabled"]),
        ("disableDuet", info["duet_disabled"]),
        ("disableStitch", info["stitch_disabled"]),
    ):
        if disabled and chosen.get(toggle) is False:
            report.add(
                "tiktok_interaction_disabled",
                f"tiktok.{toggle}",
                f"{profile.username} turned {toggle[7:].lower()}s off in TikTok; the post cannot turn them on",
                CREATOR_INFO_SOURCE,
            )


# --- what scheduling does with it ----------------------------------------------------------------


def _may_force(actor: Any) -> bool:
    """An API caller with the admin role, or staff in the admin console (the console's act
    permission already let them this far); no actor: the service itself."""
    if actor is None:
        return True
    has_role = getattr(actor, "has_role", None)
    if callable(has_role):
        return bool(has_role("admin"))
    return bool(getattr(actor, "is_staff", False))


def preflight_enforce(
    *,
    reports: list[ProfileReport],
    force: bool = False,
    actor: Any = None,
    only: frozenset[str] | None = None,
) -> None:
    """Refuse (409, the report in the details) what would fail, unless an admin forces it;
    ``only``: the problem codes that count (a reschedule's)."""
    if only is not None:
        kept_reports: list[ProfileReport] = []
        for r in reports:
            kept = [p for p in r["problems"] if p["code"] in only]
            kept_reports.append({**r, "problems": kept, "ok": not kept})
        reports = kept_reports
    if force:
        if not _may_force(actor):
            raise PermissionDenied(
                "Only an admin may schedule past a failed pre-flight check.",
                {"requiredRole": "admin", "role": getattr(actor, "role", "")},
            )
        return
    failing = [r for r in reports if not r["ok"]]
    if failing:
        first = failing[0]["problems"][0]
        raise PreflightFailed(
            f"The pre-flight check failed for {len(failing)} profile(s): {first['subject']}: {first['rule']}.",
            {"profiles": reports},
        )


def content_preflight_run(
    *,
    organization: Any,
    content: Any,
    raw_profile_ids: Sequence[str] | None = None,
    scheduled_for: object = None,
    tz_name: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> tuple[list[ProfileReport], datetime.datetime]:
    """The check of a content: on the named profiles, else those it is scheduled on, else every
    connected profile of its brand on its platforms; at ``scheduled_for``, else its scheduled
    time, else now. Returns the reports and the time checked."""
    from ..models import Publication
    from ..selectors import profiles_for_publishing
    from .timing import parse_when

    if raw_profile_ids:
        profiles = profiles_for_publishing(
            organization=organization, content=content, raw_ids=list(raw_profile_ids)
        )
    else:
        pubs = Publication.objects.filter(content=content, status=Publication.SCHEDULED).select_related(
            "profile"
        )
        scheduled = list(pubs)
        if options is None and scheduled:  # the choices it was scheduled with (TikTok's)
            options = scheduled[0].options
        profiles = [p.profile for p in scheduled] or profiles_for_publishing(
            organization=organization, content=content, raw_ids=None, cross_post=True
        )
    if scheduled_for:
        when = parse_when(scheduled_for, tz_name or profiles[0].timezone_name)
    else:
        when = content.scheduled_for or timezone.now()
    reports = content_preflight(
        subject=subject_of_content(content), profiles=profiles, scheduled_for=when, options=options
    )
    return reports, when


def draft_preflight_run(
    *,
    organization: Any,
    raw_profile_ids: Sequence[str],
    post_type: str,
    media_type: str,
    text: str = "",
    variants: Mapping[str, Any] | None = None,
    media_ids: Sequence[str] = (),
    scheduled_for: object = None,
    tz_name: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> tuple[list[ProfileReport], datetime.datetime]:
    """The check of a post not yet created, on the named profiles, at ``scheduled_for`` (in ``tz_name``, else the first
    profile's zone), else now. Returns the reports and the time checked."""
    from ..selectors import profiles_for_publishing
    from .timing import parse_when

    profiles = profiles_for_publishing(organization=organization, content=None, raw_ids=list(raw_profile_ids))
    subject = draft_subject(
        organization=organization,
        platforms=sorted({p.platform for p in profiles}),
        post_type=post_type,
        media_type=media_type,
        text=text,
        variants=variants,
        media_ids=list(media_ids),
    )
    when = parse_when(scheduled_for, tz_name or profiles[0].timezone_name) if scheduled_for else None
    reports = content_preflight(subject=subject, profiles=profiles, scheduled_for=when, options=options)
    return reports, when or timezone.now()
