"""Instagram (API with Instagram Login, graph.instagram.com).

Flow (platforms.yaml instagram.publish_flow): container from a public URL ->
poll ``status_code`` -> ``media_publish`` -> optional first comment -> permalink.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from apps.publishing.platforms.base import (
    AccountInfo,
    MediaItem,
    Metrics,
    PostRequest,
    PublishResult,
    Quota,
    check_https,
    fetch_without_refused,
    normalise_type,
)
from apps.publishing.platforms.meta import GraphClient

REEL_SECONDS = (3, 900)
STORY_VIDEO_SECONDS = (3, 60)
VIDEO_TYPES = {"video/mp4", "video/quicktime"}
CAROUSEL_MAX = 10
#: a story counts as ours from this long before the publication's scheduled time (clocks differ)
STORY_CLOCK_SKEW = datetime.timedelta(minutes=2)


def _parse_time(value: str) -> datetime.datetime | None:
    """Graph's ``2026-11-28T02:16:24+0000`` (or ISO 8601) as an aware datetime."""
    try:
        when = datetime.datetime.fromisoformat(value.replace("+0000", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=datetime.UTC)


class InstagramClient(GraphClient):
    platform = "instagram"
    default_base_url = "https://graph.instagram.com/v25.0"

    @property
    def user(self) -> str:
        return self.account_id or "me"

    # ---- validation ---------------------------------------------------------------

    def validate(self, req: PostRequest) -> None:
        if not req.media:
            raise self.invalid("Instagram posts need an image or a video.")
        if req.post_type == "story" and len(req.media) != 1:
            raise self.invalid("An Instagram story carries exactly one image or video.")
        if len(req.media) > CAROUSEL_MAX:
            raise self.invalid(f"An Instagram carousel holds at most {CAROUSEL_MAX} items.")
        if req.post_type == "reel" and (len(req.media) != 1 or req.media[0].kind != "video"):
            raise self.invalid("An Instagram reel is exactly one video.")
        for item in req.media:
            check_https(item, self.platform)
            ctype = normalise_type(item.content_type)
            if item.kind == "image":
                if ctype != "image/jpeg":
                    raise self.invalid(
                        f"Instagram accepts JPEG images only, not {ctype}.", "invalid_media_format"
                    )
                if len(item.alt_text) > 1000:
                    raise self.invalid("Instagram alt text is limited to 1,000 characters.")
            else:
                if ctype not in VIDEO_TYPES:
                    raise self.invalid(
                        f"Instagram videos must be MP4 or MOV, not {ctype}.", "invalid_media_format"
                    )
                low, high = STORY_VIDEO_SECONDS if req.post_type == "story" else REEL_SECONDS
                if item.seconds is not None and not low <= item.seconds <= high:
                    raise self.invalid(
                        f"Instagram {req.post_type} videos last {low}-{high} s, this one {item.seconds:g} s.",
                        "invalid_media_duration",
                    )

    # ---- publish ------------------------------------------------------------------

    def publish(self, req: PostRequest) -> PublishResult:
        self.validate(req)
        if len(req.media) > 1:
            children = [
                self._create_container(self._item_params(item, req, carousel=True)) for item in req.media
            ]
            for child in children:
                self._wait_for_container(child)
            params: dict[str, Any] = {
                "media_type": "CAROUSEL",
                "children": ",".join(children),
                "caption": req.caption,
            }
        else:
            params = self._item_params(req.media[0], req, carousel=False)
        container = self._create_container(params)
        self._wait_for_container(container)
        published = self.graph_post(f"{self.user}/media_publish", creation_id=container, create=True)
        media_id = str(published["id"])
        raw: dict[str, Any] = {"container_id": container, "media_id": media_id}
        if req.first_comment and req.post_type != "story":
            raw["first_comment"] = self.after_publish(
                "first_comment", lambda: self.graph_post(f"{media_id}/comments", message=req.first_comment)
            )
        permalink = self.after_publish("permalink", lambda: self.graph_get(media_id, fields="permalink"))
        url = permalink.get("permalink", "") if "error" not in permalink else ""
        return PublishResult(external_id=media_id, url=url, raw=raw)

    def _item_params(self, item: MediaItem, req: PostRequest, *, carousel: bool) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if item.kind == "image":
            params["image_url"] = item.url
            if req.post_type == "story":
                params["media_type"] = "STORIES"
            elif item.alt_text:
                params["alt_text"] = item.alt_text
        elif req.post_type == "story":
            params.update(media_type="STORIES", video_url=item.url)
        else:
            # Every single feed video is a Reel since 2023; carousel videos are VIDEO.
            params.update(media_type="VIDEO" if carousel else "REELS", video_url=item.url)
            if item.thumbnail_url and not carousel:
                params["cover_url"] = item.thumbnail_url
            if not carousel:
                params["share_to_feed"] = "true"
        if carousel:
            params["is_carousel_item"] = "true"
        elif req.post_type != "story":
            params["caption"] = req.caption
        for key in ("collaborators", "location_id", "user_tags", "audio_name", "thumb_offset"):
            if key in req.options:
                value = req.options[key]
                # lists and objects are one JSON-encoded parameter, not repeated form keys
                params[key] = json.dumps(value) if isinstance(value, list | dict) else value
        return params

    def _create_container(self, params: dict[str, Any]) -> str:
        return str(self.graph_post(f"{self.user}/media", **params)["id"])

    def _wait_for_container(self, container_id: str) -> dict[str, Any]:
        status = self.poll(
            lambda: self.graph_get(container_id, fields="status_code,status"),
            lambda body: body.get("status_code") in {"FINISHED", "PUBLISHED", "ERROR", "EXPIRED"},
            what=f"container {container_id}",
        )
        if status.get("status_code") in {"ERROR", "EXPIRED"}:
            raise self.processing_failed(
                status.get("status") or f"container {status['status_code']}", raw=status
            )
        return status

    # ---- reads ---------------------------------------------------------------------

    def find_published(self, req: PostRequest) -> PublishResult | None:
        if req.post_type == "story":
            return self._find_story(req)
        body = self.graph_get(
            f"{self.user}/media", fields="id,caption,permalink,timestamp", limit=self.recent_posts_to_scan
        )
        for post in body.get("data") or []:
            if self.same_text(post.get("caption"), req.caption):
                return PublishResult(external_id=str(post["id"]), url=post.get("permalink", ""), raw=post)
        return None

    def _find_story(self, req: PostRequest) -> PublishResult | None:
        """Stories are not on the media edge and carry no caption: the stories edge (the last
        24 h) holds ours as the first story of the same kind (image or video) made at or after
        the publication's scheduled time."""
        body = self.graph_get(
            f"{self.user}/stories",
            fields="id,media_type,media_product_type,permalink,timestamp",
            limit=self.recent_posts_to_scan,
        )
        wanted = "VIDEO" if req.media and req.media[0].kind == "video" else "IMAGE"
        not_before = _parse_time(str(req.options.get("_not_before") or ""))
        found = [
            (when, story)
            for story in body.get("data") or []
            if story.get("media_type") == wanted
            and (when := _parse_time(str(story.get("timestamp") or ""))) is not None
            and (not_before is None or when >= not_before - STORY_CLOCK_SKEW)
        ]
        if not found:
            return None
        _, story = min(found, key=lambda pair: pair[0])
        return PublishResult(external_id=str(story["id"]), url=story.get("permalink", ""), raw=story)

    def fetch_metrics(self, external_id: str) -> Metrics:
        from apps.platforms.metrics import for_platform

        spec = for_platform("instagram")
        values, refused = fetch_without_refused(
            lambda names: self.insight_values(
                self.graph_get(f"{external_id}/insights", metric=",".join(names))
            ),
            list(spec.metrics),
        )
        ours = {spec.metrics[k]: v for k, v in values.items() if k in spec.metrics}
        return Metrics(
            views=ours.get("views", 0),
            likes=ours.get("likes", 0),
            comments=ours.get("comments", 0),
            shares=ours.get("shares", 0),
            reach=ours.get("reach"),
            saves=ours.get("saves"),
            unavailable={spec.metrics[k]: reason for k, reason in refused.items()},
        )

    def fetch_account(self) -> AccountInfo:
        body = self.graph_get(self.user, fields="user_id,username,name,profile_picture_url,followers_count")
        return AccountInfo(
            external_id=str(body.get("user_id") or body.get("id") or ""),
            username=body.get("username", ""),
            display_name=body.get("name", ""),
            picture_url=body.get("profile_picture_url", ""),
            followers=int(body.get("followers_count") or 0),
        )

    def publish_quota(self) -> Quota | None:
        return self.quota_from(
            self.graph_get(f"{self.user}/content_publishing_limit", fields="quota_usage,config")
        )
