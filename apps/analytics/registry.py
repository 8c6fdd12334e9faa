"""Engagement, defined once (see ``ENGAGEMENT_PARTS`` and ``rate_basis``). What each platform
reports, under which names and in which windows, is ``apps.platforms.metrics``.
"""

from __future__ import annotations

# --- engagement, defined once --------------------------------------------------------

#: engagement = the sum of these counters (those the platform has)
ENGAGEMENT_PARTS = ("likes", "comments", "shares", "saves", "replies", "reposts", "quotes")
#: the rate's denominator, first one the platform reports wins
RATE_BASES = ("reach", "impressions", "views", "followers")


def engagement(row: dict) -> int:
    return sum(int(row.get(k) or 0) for k in ENGAGEMENT_PARTS)


def rate_basis(row: dict, followers: int | None = None) -> tuple[str | None, int]:
    for basis in RATE_BASES[:-1]:
        if row.get(basis):
            return basis, int(row[basis])
    if followers:
        return "followers", int(followers)
    return None, 0


def engagement_rate(row: dict, followers: int | None = None) -> tuple[float | None, str | None]:
    basis, denom = rate_basis(row, followers)
    if not denom:
        return None, None
    return round(engagement(row) / denom * 100, 4), basis
