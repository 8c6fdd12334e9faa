"""X API v2 (api.x.com), OAuth 2.0 user token.

Flow (platforms.yaml x.publish_flow): ``/2/media/upload/initialize`` -> ``append``
(multipart segments) -> ``finalize`` -> poll STATUS while processing -> alt text via
``/2/media/metadata`` -> ``POST /2/tweets``; the first comment is a self-reply.
"""

from __future__ import annotations

from typing import Any

import requests

from apps.publishing.platforms.base import (
    AccountInfo,
    MediaItem,
    Metrics,
    PlatformClient,
    PlatformError,
    PostRequest,
    PublishResult,
    normalise_type,
    read_chunk,
)

IMAGE_TYPES = {"image/jpeg", "image/png", "image/webp"}
VIDEO_TYPES = {"video/mp4", "video/quicktime"}
VIDEO_SECONDS = (0.5, 1200)
MAX_IMAGES = 4
MB = 1024 * 1024


class XClient(PlatformClient):
    platform = "x"
    default_base_url = "https://api.x.com"
    error_style = "x"
    token_expired_codes = frozenset(
        {89, "https://api.twitter.com/2/problems/not-authorized-for-resource-expired"}
    )
    segment_size = 4 * MB

    def limit_is_app_wide(self, error: PlatformError, resp: requests.Response) -> bool:
        """X limits each endpoint per user (``x-rate-limit-*``) and per app; a 429 whose
        ``x-app-limit-24hour-remaining`` is 0 is the app's daily cap, shared by every account."""
        return error.status_code == 429 and resp.headers.get("x-app-limit-24hour-remaining") == "0"

    def is_scope_error(self, status: int, code: Any, body: Any) -> bool:
        # A call outside the token's scopes gets a bare 403 problem naming nothing
        # ({"title": "Forbidden", "type": "about:blank", "status": 403, "detail": "Forbidden"});
        # a refused request (duplicate content, ...) is a 403 whose detail says why.
        return (
            status == 403
            and isinstance(body, dict)
            and not body.get("errors")
            and body.get("type") == "about:blank"
            and body.get("detail") == "Forbidden"
        )

    def validate(self, req: PostRequest) -> None:
        if not req.caption and not req.media:
            raise self.invalid("A post on X needs text or media.")
        gifs = [m for m in req.media if normalise_type(m.content_type) == "image/gif"]
        if req.videos or gifs:
            if len(req.media) != 1:
                raise self.invalid("A post on X carries one video or one GIF, alone.")
        elif len(req.images) > MAX_IMAGES:
            raise self.invalid(f"A post on X carries at most {MAX_IMAGES} images.")
        for item in req.media:
            if item.loader is None:
                raise self.invalid(
                    "X uploads the file itself: the media needs a loader.", "media_bytes_unavailable"
                )
            ctype = normalise_type(item.content_type)
            if item.kind == "image" and ctype not in IMAGE_TYPES | {"image/gif"}:
                raise self.invalid(f"X does not accept {ctype} images.", "invalid_media_format")
            if item.kind == "video":
                if ctype not in VIDEO_TYPES:
                    raise self.invalid(f"X videos must be MP4 or MOV, not {ctype}.", "invalid_media_format")
                if item.seconds is not None and not VIDEO_SECONDS[0] <= item.seconds <= VIDEO_SECONDS[1]:
                    raise self.invalid("X videos last 0.5 s to 20 min.", "invalid_media_duration")
            if len(item.alt_text) > 1000:
                raise self.invalid("X alt text is limited to 1,000 characters.")

    # ---- publish --------------------------------------------------------------------

    def publish(self, req: PostRequest) -> PublishResult:
        self.validate(req)
        media_ids = [self._upload(item) for item in req.media]
        body: dict[str, Any] = {"text": req.caption}
        if media_ids:
            body["media"] = {"media_ids": media_ids}
        if req.options.get("reply_settings"):
            body["reply_settings"] = req.options["reply_settings"]
        data = self.get_json("POST", "/2/tweets", json=body, create=True)["data"]
        tweet_id = str(data["id"])
        raw: dict[str, Any] = {"tweet": data, "media_ids": media_ids}
        if req.first_comment:
            raw["first_comment"] = self.after_publish(
                "first_comment",
                lambda: self.get_json(
                    "POST",
                    "/2/tweets",
                    json={"text": req.first_comment, "reply": {"in_reply_to_tweet_id": tweet_id}},
                ).get("data", {}),
            )
        return PublishResult(external_id=tweet_id, url=f"https://x.com/i/web/status/{tweet_id}", raw=raw)

    def _upload(self, item: MediaItem) -> str:
        size = item.byte_size()
        ctype = normalise_type(item.content_type)
        category = (
            "tweet_video" if item.kind == "video" else "tweet_gif" if ctype == "image/gif" else "tweet_image"
        )
        init = self.get_json(
            "POST",
            "/2/media/upload/initialize",
            json={"media_type": ctype, "total_bytes": size, "media_category": category},
        )["data"]
        media_id = str(init["id"])
        with item.open() as fh:  # one segment in memory at a time
            for index, start in enumerate(range(0, size, self.segment_size)):
                segment = read_chunk(fh, start, min(start + self.segment_size, size) - 1)
                self.request(
                    "POST",
                    f"/2/media/upload/{media_id}/append",
                    data={"segment_index": str(index)},
                    files={"media": ("blob", segment, "application/octet-stream")},
                )
        final = self.get_json("POST", f"/2/media/upload/{media_id}/finalize")["data"]
        info = final.get("processing_info")
        if info and info.get("state") not in {"succeeded", "failed"}:
            # X says when to look again: check_after_secs, before the first STATUS read and after each.
            first = float(info.get("check_after_secs") or 0)
            if first > self.poll_timeout:
                raise PlatformError(
                    f"x: media {media_id} asks for {first:.0f} s of processing",
                    code="processing_timeout",
                    retryable=True,
                    retry_after=first,
                )
            if first:
                self._sleep(first)
            info = self.poll(
                lambda: (
                    self.get_json(
                        "GET", "/2/media/upload", params={"command": "STATUS", "media_id": media_id}
                    )["data"].get("processing_info")
                    or {"state": "succeeded"}
                ),
                lambda i: i.get("state") in {"succeeded", "failed"},
                what=f"media {media_id}",
                delay=lambda i, wait: max(wait, float(i.get("check_after_secs") or 0)),
            )
        if info and info.get("state") == "failed":
            error = info.get("error") or {}
            raise self.processing_failed(
                error.get("message") or error.get("name") or "media processing failed", raw=info
            )
        if item.alt_text and item.kind != "video":  # alt text metadata: images and GIFs only
            self.get_json(
                "POST",
                "/2/media/metadata",
                json={"id": media_id, "metadata": {"alt_text": {"text": item.alt_text}}},
            )
        return media_id

    # ---- reads ----------------------------------------------------------------------

    def _user_id(self) -> str:
        if not self.account_id:
            self.account_id = str(self.get_json("GET", "/2/users/me")["data"]["id"])
        return self.account_id

    def find_published(self, req: PostRequest) -> PublishResult | None:
        body = self.get_json(
            "GET",
            f"/2/users/{self._user_id()}/tweets",
            params={
                "max_results": max(5, min(self.recent_posts_to_scan, 100)),
                "tweet.fields": "created_at,entities",
                "exclude": "replies,retweets",
            },
        )
        for tweet in body.get("data") or []:
            if self.same_text(_expand_urls(tweet), req.caption):
                tweet_id = str(tweet["id"])
                return PublishResult(
                    external_id=tweet_id, url=f"https://x.com/i/web/status/{tweet_id}", raw=tweet
                )
        return None

    def fetch_metrics(self, external_id: str) -> Metrics:
        body = self.get_json("GET", f"/2/tweets/{external_id}", params={"tweet.fields": "public_metrics"})
        if "data" not in body:
            raise PlatformError(f"X has no post {external_id}", status_code=404, code="not_found", raw=body)
        m = body["data"].get("public_metrics") or {}
        return Metrics(
            views=int(m.get("impression_count") or 0),
            likes=int(m.get("like_count") or 0),
            comments=int(m.get("reply_count") or 0),
            shares=int(m.get("retweet_count") or 0) + int(m.get("quote_count") or 0),
        )

    def fetch_account(self) -> AccountInfo:
        data = self.get_json(
            "GET", "/2/users/me", params={"user.fields": "profile_image_url,public_metrics"}
        )["data"]
        return AccountInfo(
            external_id=str(data["id"]),
            username=data.get("username", ""),
            display_name=data.get("name", ""),
            picture_url=data.get("profile_image_url", ""),
            followers=int((data.get("public_metrics") or {}).get("followers_count") or 0),
        )


def _expand_urls(tweet: dict[str, Any]) -> str:
    """X rewrites links to t.co; put the originals back before comparing captions."""
    text = tweet.get("text") or ""
    for url in (tweet.get("entities") or {}).get("urls") or []:
        if url.get("url") and url.get("media_key"):
            text = text.replace(url["url"], "")
        elif url.get("url") and url.get("expanded_url"):
            text = text.replace(url["url"], url["expanded_url"])
    return text.strip()
