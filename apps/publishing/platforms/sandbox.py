"""The sandbox publisher: the embedded default for platforms without app credentials.

It applies the platform's rules (the same validation the adaptation guarantees), keeps the
post as a SandboxPost (visible in the admin), answers with a post id and URL, and reports
metrics that grow with the post's age. A profile's `settings["sandbox"]` can ask it to
misbehave, for demos and tests: `{"fail": "permanent"|"rate_limit"|"server_error"|
"token_expired"|"outcome_unknown_after"|"first_comment", "times": N, "retryAfter": S}` fails
the next N calls (`outcome_unknown_after` keeps the post, then drops the answer;
`first_comment` keeps the post and refuses its first comment). `{"metricsDelay": S}` makes
every metrics read take S seconds (a slow platform, for demos and the collection fault test).
"""

from __future__ import annotations

import datetime
import hashlib
import math
import time
import uuid

from django.db import transaction
from django.utils import timezone

from .base import (
    AccountInfo,
    Metrics,
    OutcomeUnknown,
    PlatformClient,
    PlatformError,
    PostRequest,
    PublishResult,
    Quota,
)


class SandboxClient(PlatformClient):
    platform = "sandbox"
    default_base_url = "sandbox://local"

    def __init__(self, *, profile, **kwargs):
        super().__init__(access_token=kwargs.pop("access_token", "sandbox"), **kwargs)
        self.profile = profile

    # --- behaviour switches ------------------------------------------------------------
    BEFORE = ("permanent", "rate_limit", "server_error", "token_expired")

    def _misbehave(self) -> None:
        from apps.profiles.models import SocialProfile

        if (self.profile.settings.get("sandbox") or {}).get("fail") not in self.BEFORE:
            return
        with transaction.atomic():
            profile = SocialProfile.objects.select_for_update().get(pk=self.profile.pk)
            plan = dict(profile.settings.get("sandbox") or {})
            if plan.get("fail") not in self.BEFORE or int(plan.get("times", 1)) <= 0:
                return
            plan["times"] = int(plan.get("times", 1)) - 1
            profile.settings = {**profile.settings, "sandbox": plan}
            profile.save(update_fields=["settings", "updated_at"])
        kind, retry_after = plan["fail"], float(plan.get("retryAfter", 1))
        if kind == "rate_limit":
            raise PlatformError(
                "Sandbox: rate limit reached, try later.",
                status_code=429,
                code="rate_limited",
                retryable=True,
                retry_after=retry_after,
            )
        if kind == "server_error":
            raise PlatformError(
                "Sandbox: internal error.", status_code=503, code="server_error", retryable=True
            )
        if kind == "token_expired":
            raise PlatformError(
                "Sandbox: the access token has expired.",
                status_code=401,
                code="token_expired",
                token_expired=True,
            )
        if kind == "permanent":
            raise PlatformError(
                "Sandbox: this post was refused (media not accepted).", status_code=400, code="media_refused"
            )

    # --- operations ------------------------------------------------------------------------
    def publish(self, req: PostRequest) -> PublishResult:
        from apps.publishing.models import SandboxPost

        self._misbehave()
        self.validate(req)
        external_id = uuid.uuid4().hex[:20]
        SandboxPost.objects.create(
            organization_id=self.profile.organization_id,
            profile=self.profile,
            platform=self.profile.platform,
            reference=req.reference,
            external_id=external_id,
            caption=req.caption,
            title=req.title,
            first_comment=req.first_comment,
            media=[m.url for m in req.media],
            post_type=req.post_type,
        )
        plan = self.profile.settings.get("sandbox") or {}
        if plan.get("fail") == "outcome_unknown_after":
            self._misbehave_after()
        raw: dict = {"sandbox": True}
        if req.first_comment and plan.get("fail") == "first_comment":
            raw["first_comment"] = {
                "error": "Sandbox: the first comment was refused (permission missing).",
                "step": "first_comment",
            }
        return PublishResult(external_id=external_id, url=self._url(external_id), raw=raw)

    def _misbehave_after(self) -> None:
        from apps.profiles.models import SocialProfile

        with transaction.atomic():
            profile = SocialProfile.objects.select_for_update().get(pk=self.profile.pk)
            plan = dict(profile.settings.get("sandbox") or {})
            if int(plan.get("times", 1)) <= 0:
                return
            plan["times"] = int(plan.get("times", 1)) - 1
            profile.settings = {**profile.settings, "sandbox": plan}
            profile.save(update_fields=["settings", "updated_at"])
        raise OutcomeUnknown("Sandbox: the connection dropped after the post was sent.")

    def _url(self, external_id: str) -> str:
        # a path: the answers make it absolute under the PUBLIC_BASE_URL of the moment
        # (apps.core.links.public_url), so a later port change does not break stored links
        return f"/sandbox/{self.profile.platform}/{self.profile.username}/{external_id}"

    def find_published(self, req: PostRequest) -> PublishResult | None:
        from apps.publishing.models import SandboxPost

        post = (
            SandboxPost.objects.filter(profile=self.profile, reference=req.reference)
            .order_by("created_at")
            .first()
        )
        if post is None:
            return None
        return PublishResult(
            external_id=post.external_id, url=self._url(post.external_id), raw={"reconciled": True}
        )

    def fetch_metrics(self, external_id: str) -> Metrics:
        from apps.publishing.models import SandboxPost

        delay = float((self.profile.settings.get("sandbox") or {}).get("metricsDelay") or 0)
        if delay > 0:
            time.sleep(min(delay, 30.0))
        post = SandboxPost.objects.filter(profile=self.profile, external_id=external_id).first()
        if post is None:
            raise PlatformError("Sandbox: no such post.", status_code=404, code="not_found")
        hours = max(0.0, (timezone.now() - post.created_at).total_seconds() / 3600)
        seed = int(hashlib.sha256(external_id.encode()).hexdigest()[:6], 16) % 100
        followers = max(100, self.profile.follower_count)
        # plausible curves: fast at first, then saturating; deterministic per post
        views = int(followers * (0.3 + seed / 200) * (1 - math.exp(-hours / 6)) + hours * 2)
        likes = int(views * (0.04 + seed / 5000))
        comments = int(likes * 0.08)
        shares = int(likes * 0.05)
        reach = int(views * 0.7)
        saves = int(likes * 0.1)
        return Metrics(views=views, likes=likes, comments=comments, shares=shares, reach=reach, saves=saves)

    def fetch_account(self) -> AccountInfo:
        p = self.profile
        return AccountInfo(
            external_id=p.external_id,
            username=p.username,
            display_name=p.display_name,
            picture_url=p.picture_url,
            followers=p.follower_count,
        )

    def publish_quota(self) -> Quota | None:
        from apps.publishing.models import SandboxPost

        limit = int((self.profile.settings.get("sandbox") or {}).get("dailyLimit", 0) or 0)
        if not limit:
            return None
        since = timezone.now() - datetime.timedelta(hours=24)
        return Quota(
            used=SandboxPost.objects.filter(profile=self.profile, created_at__gte=since).count(), limit=limit
        )

    def validate(self, req: PostRequest) -> None:
        from apps.platforms.validation import validate_variant

        problems = validate_variant(
            self.profile.platform,
            {
                "caption": req.caption,
                "hashtags": [],
                "firstComment": req.first_comment,
                "title": req.title,
                "sounds": req.sounds,
                "altText": next((m.alt_text for m in req.media if m.alt_text), ""),
            },
            post_type=req.post_type,
            media_type=req.media[0].kind if req.media else "image",
        )
        if problems:
            raise PlatformError(
                f"Sandbox ({self.profile.platform}) refused the post: {problems}",
                status_code=400,
                code="invalid_post",
            )
