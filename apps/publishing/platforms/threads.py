"""Threads (graph.threads.net).

Flow (platforms.yaml threads.publish_flow): container ``POST /{user}/threads`` ->
poll ``status`` -> ``threads_publish`` -> permalink; the first comment is a reply
container (``reply_to_id``) published the same way.
"""

from __future__ import annotations

from typing import Any

from apps.publishing.platforms.base import (
    AccountInfo,
    MediaItem,
    Metrics,
    PostRequest,
    PublishResult,
    Quota,
    check_https,
    normalise_type,
)
from apps.publishing.platforms.meta import GraphClient

IMAGE_TYPES = {"image/jpeg", "image/png"}
VIDEO_TYPES = {"video/mp4", "video/quicktime"}
VIDEO_MAX_SECONDS = 300
CAROUSEL_RANGE = (2, 20)
TEXT_MAX_CHARS = 500


def threads_length(text: str) -> int:
    """Threads counts an emoji as its UTF-8 bytes and everything else as one character."""
    total = 0
    for ch in text:
        code = ord(ch)
        is_emoji = code >= 0x1F000 or 0x2600 <= code <= 0x27BF or code in (0x200D, 0xFE0F)
        total += len(ch.encode("utf-8")) if is_emoji else 1
    return total


class ThreadsClient(GraphClient):
    platform = "threads"
    default_base_url = "https://graph.threads.net/v1.0"
    token_as_param = True

    @property
    def user(self) -> str:
        return self.account_id or "me"

    def validate(self, req: PostRequest) -> None:
        if threads_length(req.caption) > TEXT_MAX_CHARS:
            raise self.invalid(f"Threads posts are limited to {TEXT_MAX_CHARS} characters.", "text_too_long")
        if not req.caption and not req.media:
            raise self.invalid("A Threads post needs text or media.")
        if len(req.media) > 1 and not CAROUSEL_RANGE[0] <= len(req.media) <= CAROUSEL_RANGE[1]:
            raise self.invalid("A Threads carousel holds 2 to 20 items.")
        for item in req.media:
            check_https(item, self.platform)
            ctype = normalise_type(item.content_type)
            if item.kind == "image" and ctype not in IMAGE_TYPES:
                raise self.invalid(
                    f"Threads accepts JPEG and PNG images, not {ctype}.", "invalid_media_format"
                )
            if item.kind == "video":
                if ctype not in VIDEO_TYPES:
                    raise self.invalid(
                        f"Threads videos must be MP4 or MOV, not {ctype}.", "invalid_media_format"
                    )
                if item.seconds is not None and not 0 < item.seconds <= VIDEO_MAX_SECONDS:
                    raise self.invalid(
                        f"Threads videos last up to {VIDEO_MAX_SECONDS} s.", "invalid_media_duration"
                    )

    def publish(self, req: PostRequest) -> PublishResult:
        self.validate(req)
        params: dict[str, Any]
        if len(req.media) > 1:
            children = [
                self._container({**self._media_params(item), "is_carousel_item": "true"})
                for item in req.media
            ]
            params = {"media_type": "CAROUSEL", "children": ",".join(children), "text": req.caption}
        elif req.media:
            params = {**self._media_params(req.media[0]), "text": req.caption}
        else:
            params = {"media_type": "TEXT", "text": req.caption}
        for key in ("topic_tag", "link_attachment", "reply_control", "quote_post_id"):
            if req.options.get(key):
                params[key] = req.options[key]
        container = self._container(params)
        media_id = self._publish_container(container)
        raw: dict[str, Any] = {"container_id": container, "media_id": media_id}
        if req.first_comment:
            raw["first_comment"] = self.after_publish(
                "first_comment", lambda: self._reply(media_id, req.first_comment)
            )
        permalink = self.after_publish("permalink", lambda: self.graph_get(media_id, fields="permalink"))
        return PublishResult(external_id=media_id, url=permalink.get("permalink", ""), raw=raw)

    def _media_params(self, item: MediaItem) -> dict[str, Any]:
        if item.kind == "image":
            params: dict[str, Any] = {"media_type": "IMAGE", "image_url": item.url}
        else:
            params = {"media_type": "VIDEO", "video_url": item.url}
        if item.alt_text:
            params["alt_text"] = item.alt_text
        return params

    def _container(self, params: dict[str, Any]) -> str:
        container = str(self.graph_post(f"{self.user}/threads", **params)["id"])
        status = self.poll(
            lambda: self.graph_get(container, fields="status,error_message"),
            lambda body: body.get("status") in {"FINISHED", "PUBLISHED", "ERROR", "EXPIRED"},
            what=f"container {container}",
        )
        if status.get("status") in {"ERROR", "EXPIRED"}:
            raise self.processing_failed(
                status.get("error_message") or f"container {status['status']}", raw=status
            )
        return container

    def _publish_container(self, container: str) -> str:
        return str(self.graph_post(f"{self.user}/threads_publish", creation_id=container, create=True)["id"])

    def _reply(self, media_id: str, text: str) -> dict[str, Any]:
        container = self._container({"media_type": "TEXT", "text": text, "reply_to_id": media_id})
        return {"id": self._publish_container(container)}

    def find_published(self, req: PostRequest) -> PublishResult | None:
        body = self.graph_get(
            f"{self.user}/threads", fields="id,text,permalink,timestamp", limit=self.recent_posts_to_scan
        )
        for post in body.get("data") or []:
            if self.same_text(post.get("text"), req.caption):
                return PublishResult(external_id=str(post["id"]), url=post.get("permalink", ""), raw=post)
        return None

    def fetch_metrics(self, external_id: str) -> Metrics:
        values = self.insight_values(
            self.graph_get(f"{external_id}/insights", metric="views,likes,replies,reposts,quotes,shares")
        )
        return Metrics(
            views=values.get("views", 0),
            likes=values.get("likes", 0),
            comments=values.get("replies", 0),
            shares=values.get("reposts", 0) + values.get("quotes", 0) + values.get("shares", 0),
        )

    def fetch_account(self) -> AccountInfo:
        body = self.graph_get(self.user, fields="id,username,name,threads_profile_picture_url")
        followers = self.insight_values(
            self.graph_get(f"{body.get('id') or self.user}/threads_insights", metric="followers_count")
        )
        return AccountInfo(
            external_id=str(body.get("id", "")),
            username=body.get("username", ""),
            display_name=body.get("name", ""),
            picture_url=body.get("threads_profile_picture_url", ""),
            followers=followers.get("followers_count", 0),
        )

    def publish_quota(self) -> Quota | None:
        return self.quota_from(
            self.graph_get(f"{self.user}/threads_publishing_limit", fields="quota_usage,config")
        )
