"""Which platform features a profile's grant allows: each feature's OAuth permissions as
``platforms.yaml`` lists them (``features.<platform>``), held against the scopes a grant stored."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings

from .rules import load_platforms_yaml


def scope_set(scope: str) -> set[str]:
    """The permissions of a grant's scope text (comma- or space-separated)."""
    return {s for s in re.split(r"[,\s]+", scope or "") if s}


#: LinkedIn organization pages are their own feature set (platforms.yaml `features.linkedin_organization`)
LINKEDIN_ORGANIZATION = "linkedin_organization"


def feature_platform(platform: str, account_id: str = "") -> str:
    """The key of a profile's features: a LinkedIn organization page (its account is
    ``urn:li:organization:<id>``) posts with the Community Management API's permissions."""
    if platform == "linkedin" and (account_id or "").startswith("urn:li:organization:"):
        return LINKEDIN_ORGANIZATION
    return platform


def feature_scopes(platform: str) -> dict[str, dict[str, Any]]:
    """``{feature: {"scopes": [...], "restricted": bool, "note": str}}`` from platforms.yaml."""
    return dict(((load_platforms_yaml().get("features") or {}).get(platform)) or {})


def features_allowed(platform: str, granted: str) -> list[dict[str, Any]]:
    """Per feature: whether the stored grant allows it, and the permissions it lacks."""
    have = scope_set(granted)
    out = []
    for name, feature in feature_scopes(platform).items():
        missing = [str(s) for s in feature.get("scopes") or [] if str(s) not in have]
        note = feature.get("note") or None
        if platform == "tiktok" and name == "publish" and not getattr(settings, "TIKTOK_APP_AUDITED", False):
            note = (
                "This TikTok app is not audited yet: TikTok lets it post only privately (SELF_ONLY), "
                "for at most 5 users a day; choose SELF_ONLY for each post until TikTok audits it."
            )
        out.append(
            {
                "feature": name,
                "allowed": not missing,
                "missingScopes": missing,
                "restricted": bool(feature.get("restricted")),
                "note": note,
            }
        )
    return out
