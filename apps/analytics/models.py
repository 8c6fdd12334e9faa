"""Stored metric history: one row per pull, per publication and per profile.

A counter the platform did not report is NULL (never zero); the reason is in
``unavailable`` (``{metric: reason}``).
"""

from __future__ import annotations

from django.db import models
from django.db.models import Case, F, FloatField, Value, When
from django.db.models.functions import Cast, Coalesce

from apps.core.models import OrgScopedModel

from .registry import ENGAGEMENT_PARTS, RATE_BASES

#: our vocabulary for per-post counters
POST_METRICS = (
    "views",
    "reach",
    "impressions",
    "likes",
    "comments",
    "shares",
    "saves",
    "clicks",
    "replies",
    "reposts",
    "quotes",
    "watch_time",
)


def _engagement():
    """likes + comments + shares + saves + replies + reposts + quotes, absent ones as 0."""
    expr = Coalesce(F(ENGAGEMENT_PARTS[0]), Value(0))
    for part in ENGAGEMENT_PARTS[1:]:
        expr = expr + Coalesce(F(part), Value(0))
    return expr


def _rate():
    """engagement * 100 / the first of reach, impressions, views the platform reported (> 0)."""
    eng = Cast(_engagement(), FloatField())
    return Case(
        *[
            When(**{f"{b}__gt": 0}, then=eng * Value(100.0) / Cast(F(b), FloatField()))
            for b in RATE_BASES[:-1]
        ],
        default=Value(None),
        output_field=FloatField(),
    )


def _rate_basis():
    return Case(
        *[When(**{f"{b}__gt": 0}, then=Value(b)) for b in RATE_BASES[:-1]],
        default=Value(None),
        output_field=models.CharField(max_length=12),
    )


class PostSnapshot(OrgScopedModel):
    #: metrics of its brands' profiles (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("profile__brand",)
    publication = models.ForeignKey(
        "publishing.Publication", on_delete=models.CASCADE, related_name="snapshots"
    )
    content = models.ForeignKey("content.Content", on_delete=models.CASCADE, related_name="+")
    profile = models.ForeignKey("profiles.SocialProfile", on_delete=models.CASCADE, related_name="+")
    platform = models.CharField(max_length=20)
    taken_at = models.DateTimeField()
    #: when the post went out (copied so aggregates bucket without a join)
    published_at = models.DateTimeField()
    views = models.BigIntegerField(null=True)
    reach = models.BigIntegerField(null=True)
    impressions = models.BigIntegerField(null=True)
    likes = models.BigIntegerField(null=True)
    comments = models.BigIntegerField(null=True)
    shares = models.BigIntegerField(null=True)
    saves = models.BigIntegerField(null=True)
    clicks = models.BigIntegerField(null=True)
    replies = models.BigIntegerField(null=True)
    reposts = models.BigIntegerField(null=True)
    quotes = models.BigIntegerField(null=True)
    watch_time = models.BigIntegerField(null=True)
    #: {metric: reason} for every counter the platform did not give us
    unavailable = models.JSONField(default=dict, blank=True)
    #: the newest snapshot of its publication (aggregates read only these rows)
    latest = models.BooleanField(default=True)
    # Engagement and the snapshot's own rate, defined once and stored by PostgreSQL with the
    # row (generated columns), so aggregates sum columns instead of repeating the formula.
    # A post whose platform reports none of reach/impressions/views has no rate here; the
    # readers fall back to the profile's followers (selectors.rate_expr).
    engagement = models.GeneratedField(
        expression=_engagement(), output_field=models.BigIntegerField(), db_persist=True
    )
    rate = models.GeneratedField(
        expression=_rate(), output_field=models.FloatField(null=True), db_persist=True
    )
    rate_basis = models.GeneratedField(
        expression=_rate_basis(), output_field=models.CharField(max_length=12, null=True), db_persist=True
    )

    class Meta:
        indexes = [
            models.Index(fields=["publication", "-taken_at"], name="postsnap_pub_taken_idx"),
            models.Index(
                fields=["organization", "published_at"],
                name="postsnap_org_latest_idx",
                condition=models.Q(latest=True),
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["publication"], condition=models.Q(latest=True), name="postsnap_one_latest"
            ),
        ]


class ProfileSnapshot(OrgScopedModel):
    #: metrics of its brands' profiles (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("profile__brand",)
    profile = models.ForeignKey("profiles.SocialProfile", on_delete=models.CASCADE, related_name="snapshots")
    taken_at = models.DateTimeField()
    followers = models.BigIntegerField(null=True)
    following = models.BigIntegerField(null=True)
    posts = models.BigIntegerField(null=True)
    unavailable = models.JSONField(default=dict, blank=True)

    class Meta:
        indexes = [models.Index(fields=["profile", "taken_at"], name="profsnap_profile_taken_idx")]


class PullClaim(models.Model):
    """A metrics pull in flight (a lease): the worker holding ``token`` may write the snapshot
    of ``subject_id`` (a publication or a profile) until ``leased_until``.

    Taken before the platform call, checked and deleted in the transaction that stores the
    snapshot; a worker killed mid-pull leaves a claim that expires, and the subject (still
    due, since nothing was written) is taken again by the next sweep.
    """

    POST, PROFILE = "post", "profile"

    subject_id = models.UUIDField(primary_key=True)
    kind = models.CharField(max_length=10)
    token = models.UUIDField()
    leased_until = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["token"], name="pullclaim_token_idx")]

    def __str__(self) -> str:
        return f"{self.kind} {self.subject_id} until {self.leased_until:%H:%M:%S}"
