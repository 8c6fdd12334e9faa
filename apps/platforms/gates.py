"""Where the operator's platform apps stand in each platform's review, and what that lets a
profile do: read from settings, said at connect, listed per profile, and enforced before a
post is scheduled (a post the platform would lock private, refuse or hide is refused here with
the reason, not discovered after it went out).

- YouTube: until Google audits the API project every upload is locked private
  (YOUTUBE_PROJECT_AUDITED); https://developers.google.com/youtube/v3/docs/videos/insert
- TikTok: an unaudited app posts only SELF_ONLY, to at most 5 users a day, whose accounts must be
  private (TIKTOK_APP_AUDITED); https://developers.tiktok.com/doc/content-sharing-guidelines
- Pinterest: Trial access writes only to api-sandbox.pinterest.com, Pins visible to their
  creator (PINTEREST_STANDARD_ACCESS); https://developers.pinterest.com/docs/developer-tools/sandbox/
- X: the Free tier has no post reads (no metrics, no reconciliation) and a small monthly write
  cap (X_API_TIER); https://docs.x.com/x-api/getting-started/about-x-api
"""

from __future__ import annotations

from typing import TypedDict

from django.conf import settings


class Capability(TypedDict):
    capability: str
    allowed: bool
    reason: str | None


YOUTUBE_UNAUDITED = (
    "Google has not audited this app's API project: YouTube locks every upload private until it "
    "does (the operator sets YOUTUBE_PROJECT_AUDITED once the audit passes)."
)
TIKTOK_UNAUDITED = (
    "TikTok has not audited this app: it can post only privately (SELF_ONLY), to at most 5 users a "
    "day, whose accounts must be private (the operator sets TIKTOK_APP_AUDITED once audited)."
)
PINTEREST_TRIAL = (
    "This app has Pinterest Trial access: Pins go to Pinterest's sandbox (api-sandbox.pinterest.com) "
    "and only their creator sees them (the operator sets PINTEREST_STANDARD_ACCESS once approved)."
)
X_FREE = (
    "This app is on X's Free tier: posts cannot be read back, so there are no metrics and no "
    "check after a lost answer, and the app may post only a few hundred times a month "
    "(X_API_TIER: basic, pro or enterprise lifts this)."
)


def _cap(name: str, allowed: bool, reason: str) -> Capability:
    return {"capability": name, "allowed": allowed, "reason": None if allowed else reason}


def capabilities(platform: str, *, sandbox: bool = False) -> list[Capability]:
    """What a profile of ``platform`` can do given the operator's app review status."""
    if sandbox:
        return [_cap("real_posts", False, "A sandbox profile: its posts go nowhere.")]
    if platform == "youtube":
        audited = bool(getattr(settings, "YOUTUBE_PROJECT_AUDITED", False))
        return [
            _cap("public_posts", audited, YOUTUBE_UNAUDITED),
            _cap("unlisted_posts", audited, YOUTUBE_UNAUDITED),
        ]
    if platform == "tiktok":
        audited = bool(getattr(settings, "TIKTOK_APP_AUDITED", False))
        return [_cap("public_posts", audited, TIKTOK_UNAUDITED)]
    if platform == "pinterest":
        return [
            _cap("public_posts", bool(getattr(settings, "PINTEREST_STANDARD_ACCESS", False)), PINTEREST_TRIAL)
        ]
    if platform == "x":
        paid = str(getattr(settings, "X_API_TIER", "free")).lower() != "free"
        return [_cap("metrics", paid, X_FREE), _cap("reconciliation", paid, X_FREE)]
    return []


def connect_notice(platform: str, *, sandbox: bool = False) -> str | None:
    """What to tell the user right after connecting (each gate that holds back their posts)."""
    reasons = [c["reason"] for c in capabilities(platform, sandbox=sandbox) if c["reason"]]
    unique = list(dict.fromkeys(reasons))
    return " ".join(unique) or None


#: visibilities (profile defaultVisibility) a gate refuses, per platform (TikTok: each post's
#: own privacy level, `tiktok_privacy_refusal`)
_GATED_VISIBILITY = {
    "youtube": {"public": "public_posts", "unlisted": "unlisted_posts"},
}


def visibility_refusal(platform: str, visibility: str, *, sandbox: bool = False) -> str | None:
    """Why a post of this visibility cannot go out as asked (None: it can)."""
    capability = _GATED_VISIBILITY.get(platform, {}).get(visibility)
    if capability is None or sandbox:
        return None
    for cap in capabilities(platform):
        if cap["capability"] == capability and not cap["allowed"]:
            return f"A {visibility} {platform} post is not possible yet: {cap['reason']} Set the profile's defaultVisibility to private."
    return None


def tiktok_privacy_refusal(privacy_level: str, *, sandbox: bool = False) -> str | None:
    """Why a TikTok post with this privacy level cannot go out as chosen (None: it can): an
    app TikTok has not audited posts SELF_ONLY only."""
    if sandbox or privacy_level == "SELF_ONLY":
        return None
    for cap in capabilities("tiktok"):
        if cap["capability"] == "public_posts" and not cap["allowed"]:
            return f"A {privacy_level} TikTok post is not possible yet: {cap['reason']} Choose SELF_ONLY."
    return None
