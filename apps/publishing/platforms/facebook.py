"""Facebook Pages (graph.facebook.com, Page access token; video uploads on graph-video).

Flows (platforms.yaml facebook.publish_flow): text/link -> ``/{page}/feed``; photo ->
``/{page}/photos`` (several photos: unpublished photos attached to a feed post); reel ->
``/{page}/video_reels`` start -> rupload (``file_url``) -> finish with
``video_state=PUBLISHED`` -> poll the video status (a poll that runs out leaves it to the
processing poller); any other video (landscape, over 90 s) -> the Resumable Upload API, its
session started with the User access token kept at connect -> ``/{page}/videos`` on
graph-video.facebook.com with the file handle and the Page token
(https://developers.facebook.com/docs/video-api/guides/publishing); first comment ->
``/{post}/comments``.
"""

from __future__ import annotations

import json
from typing import Any

from apps.publishing.platforms.base import (
    AccountInfo,
    ChunkReader,
    MediaItem,
    Metrics,
    PlatformError,
    PostRequest,
    PublishResult,
    check_https,
    fetch_without_refused,
    normalise_type,
)
from apps.publishing.platforms.meta import GraphClient

#: a Page video (not a reel) lasts up to 240 minutes
PAGE_VIDEO_SECONDS = 4 * 3600
PHOTO_TYPES = {"image/jpeg", "image/png", "image/gif", "image/bmp", "image/tiff"}
REEL_SECONDS = (3, 90)
MULTI_PHOTO_MAX = 10


class FacebookClient(GraphClient):
    platform = "facebook"
    default_base_url = "https://graph.facebook.com/v25.0"
    #: how long ``publish`` reads a reel's status before handing it to the processing poller
    #: (Meta: about once a minute for up to five minutes)
    reel_wait = 300.0

    def __init__(self, *, user_token: str = "", video_base_url: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: the User access token kept at connect: the Resumable Upload API's session needs it
        self.user_token = user_token
        #: Meta's Video API host: Page videos are published on graph-video.facebook.com
        self.video_base_url = (
            video_base_url or self.base_url.replace("://graph.facebook.com", "://graph-video.facebook.com", 1)
        ).rstrip("/")

    @property
    def page(self) -> str:
        return self.account_id or "me"

    def validate(self, req: PostRequest) -> None:
        if not req.caption and not req.media and not req.options.get("link"):
            raise self.invalid("A Facebook post needs a message, a link or media.")
        if req.videos and (len(req.media) != 1):
            raise self.invalid("A Facebook video post is exactly one video.")
        if len(req.images) > MULTI_PHOTO_MAX:
            raise self.invalid(f"A Facebook post holds at most {MULTI_PHOTO_MAX} photos.")
        for item in req.media:
            check_https(item, self.platform)
            ctype = normalise_type(item.content_type)
            if item.kind == "image" and ctype not in PHOTO_TYPES:
                raise self.invalid(f"Facebook does not accept {ctype} photos.", "invalid_media_format")
            if item.kind == "video":
                if ctype != "video/mp4":
                    raise self.invalid(f"Facebook videos must be MP4, not {ctype}.", "invalid_media_format")
                if req.post_type == "reel":
                    if item.seconds is not None and not REEL_SECONDS[0] <= item.seconds <= REEL_SECONDS[1]:
                        raise self.invalid("Facebook reels last 3-90 s.", "invalid_media_duration")
                    if item.width and item.height and abs(item.width / item.height - 9 / 16) > 0.01:
                        raise self.invalid("Facebook reels must be 9:16.", "invalid_media_dimensions")
                elif not is_reel(item):
                    if item.seconds is not None and item.seconds > PAGE_VIDEO_SECONDS:
                        raise self.invalid("Facebook Page videos last at most 4 h.", "invalid_media_duration")
                    if not item.readable:
                        raise self.invalid(
                            "A Facebook Page video is uploaded from the file: the media needs a loader.",
                            "media_bytes_unavailable",
                        )

    # ---- publish -------------------------------------------------------------------

    def publish(self, req: PostRequest) -> PublishResult:
        self.validate(req)
        if req.videos and req.post_type != "reel" and not is_reel(req.videos[0]):
            post_id, url, raw = self._publish_page_video(req)
        elif req.videos:
            reel = self._publish_reel(req)
            if reel.pending:
                return reel
            post_id, url, raw = reel.external_id, reel.url, reel.raw
        elif len(req.images) == 1:
            item = req.images[0]
            body = self.graph_post(
                f"{self.page}/photos",
                url=item.url,
                caption=req.caption,
                alt_text_custom=item.alt_text,
                published="true",
                create=True,
            )
            post_id, url, raw = str(body.get("post_id") or body["id"]), "", {"photo_id": body.get("id")}
        elif req.images:
            photo_ids = [
                str(
                    self.graph_post(
                        f"{self.page}/photos", url=i.url, alt_text_custom=i.alt_text, published="false"
                    )["id"]
                )
                for i in req.images
            ]
            body = self.graph_post(
                f"{self.page}/feed",
                message=req.caption,
                attached_media=json.dumps([{"media_fbid": pid} for pid in photo_ids]),
                create=True,
            )
            post_id, url, raw = str(body["id"]), "", {"photo_ids": photo_ids}
        else:
            body = self.graph_post(
                f"{self.page}/feed", message=req.caption, link=req.options.get("link"), create=True
            )
            post_id, url, raw = str(body["id"]), "", {}
        if req.first_comment:
            raw["first_comment"] = self.after_publish(
                "first_comment", lambda: self.graph_post(f"{post_id}/comments", message=req.first_comment)
            )
        if not url:
            found = self.after_publish("permalink", lambda: self.graph_get(post_id, fields="permalink_url"))
            url = found.get("permalink_url", "")
        return PublishResult(external_id=post_id, url=url, raw=raw)

    def _publish_reel(self, req: PostRequest) -> PublishResult:
        item = req.videos[0]
        start = self.graph_post(f"{self.page}/video_reels", upload_phase="start")
        video_id = str(start["video_id"])
        # rupload takes "OAuth <token>" and fetches the hosted file itself.
        self.request(
            "POST",
            start["upload_url"],
            auth=False,
            headers={"Authorization": f"OAuth {self.access_token}", "file_url": item.url},
        )
        self.graph_post(
            f"{self.page}/video_reels",
            upload_phase="finish",
            video_id=video_id,
            video_state="PUBLISHED",
            description=req.caption,
            title=req.title,
            create=True,
        )
        state: dict[str, Any] = {"video_id": video_id, "kind": "reel", "first_comment": req.first_comment}
        last: dict[str, Any] = {}

        def read() -> dict[str, Any]:
            last.clear()
            last.update(self.graph_get(video_id, fields="status"))
            return dict(last)

        try:
            status = self.poll(
                read,
                lambda body: _reel_done(body.get("status") or {}),
                what=f"reel {video_id}",
                timeout=min(self.poll_timeout, self.reel_wait),
            )
        except PlatformError as exc:
            # The reel was sent for publishing; only its status is not known yet. Never post it
            # twice: the processing poller reads the status later (``check_pending``).
            extra = {} if exc.code == "processing_timeout" else {"status_error": exc.message}
            return self._reel_pending(state, last, extra)
        return self._reel_result(state, status)

    def _publish_page_video(self, req: PostRequest) -> tuple[str, str, dict[str, Any]]:
        """A video that is no reel (landscape or square, or over 90 s), as Meta's guide says
        (https://developers.facebook.com/docs/video-api/guides/publishing): the Resumable Upload
        API's session is started with the User access token (``/{app-id}/uploads``), the file
        streamed from storage to ``/upload:{session}`` (``file_offset``, ``OAuth <user token>``),
        and the handle published on graph-video.facebook.com's ``/{page}/videos`` with the Page
        token."""
        item = req.videos[0]
        if not self.user_token:
            raise self.invalid(
                "Facebook uploads a Page video with the User access token given at connect, which "
                "this profile does not hold (connected before it was kept): reconnect the profile.",
                "user_token_missing",
            )
        size = item.byte_size()
        session = self.get_json(
            "POST",
            f"{self.app_id}/uploads",
            auth=False,
            headers={"Authorization": f"Bearer {self.user_token}"},
            data={
                "file_name": f"postforge-{req.reference or 'video'}.mp4",
                "file_length": size,
                "file_type": "video/mp4",
            },
        )
        with item.open() as fh:
            uploaded = self.get_json(
                "POST",
                f"{self.base_url}/{session['id']}",  # "upload:<id>" would read as a URL scheme
                auth=False,
                data=ChunkReader(fh, 0, size - 1),
                headers={"Authorization": f"OAuth {self.user_token}", "file_offset": "0"},
            )
        body = self.graph_post(
            f"{self.video_base_url}/{self.page}/videos",
            title=req.title,
            description=req.caption,
            fbuploader_video_file_chunk=uploaded["h"],
            create=True,
        )
        video_id = str(body["id"])
        info = self.after_publish(
            "permalink", lambda: self.graph_get(video_id, fields="permalink_url,post_id")
        )
        url = str(info.get("permalink_url", ""))
        if url.startswith("/"):
            url = "https://www.facebook.com" + url
        return str(info.get("post_id") or video_id), url, {"video_id": video_id}

    @property
    def app_id(self) -> str:
        from django.conf import settings

        app_id = str(getattr(settings, "FACEBOOK_CLIENT_ID", "") or "")
        if not app_id:
            raise self.invalid(
                "Facebook Page videos are uploaded through the app (FACEBOOK_CLIENT_ID is not set).",
                "platform_not_configured",
            )
        return app_id

    def check_pending(self, state: dict[str, Any]) -> PublishResult:
        """One status read for a reel ``publish`` left pending (its status poll ran out)."""
        status = self.graph_get(str(state["video_id"]), fields="status")
        if not _reel_done(status.get("status") or {}):
            return self._reel_pending(state, status, {})
        result = self._reel_result(state, status)
        if state.get("first_comment"):
            post_id = result.external_id
            result.raw["first_comment"] = self.after_publish(
                "first_comment",
                lambda: self.graph_post(f"{post_id}/comments", message=state["first_comment"]),
            )
        return result

    @staticmethod
    def _reel_pending(state: dict[str, Any], body: dict[str, Any], extra: dict[str, Any]) -> PublishResult:
        video_status = str((body.get("status") or {}).get("video_status") or "processing")
        state = {**state, "status": video_status, **extra}
        return PublishResult(
            external_id="", url="", pending=True, state=state, raw={"video_id": state["video_id"]}
        )

    def _reel_result(self, state: dict[str, Any], status: dict[str, Any]) -> PublishResult:
        video_id = str(state["video_id"])
        st = status.get("status") or {}
        if st.get("video_status") == "error" or (st.get("processing_phase") or {}).get("status") == "error":
            errors = (st.get("processing_phase") or {}).get("errors") or [{}]
            raise self.processing_failed(errors[0].get("message") or "reel processing failed", raw=status)
        info = self.after_publish(
            "permalink", lambda: self.graph_get(video_id, fields="permalink_url,post_id")
        )
        url = str(info.get("permalink_url", ""))
        if url.startswith("/"):
            url = "https://www.facebook.com" + url
        return PublishResult(
            external_id=str(info.get("post_id") or video_id), url=url, raw={"video_id": video_id}
        )

    # ---- reads ----------------------------------------------------------------------

    def find_published(self, req: PostRequest) -> PublishResult | None:
        body = self.graph_get(
            f"{self.page}/published_posts",
            fields="id,message,permalink_url,created_time",
            limit=self.recent_posts_to_scan,
        )
        for post in body.get("data") or []:
            if self.same_text(post.get("message"), req.caption):
                return PublishResult(external_id=str(post["id"]), url=post.get("permalink_url", ""), raw=post)
        return None

    def fetch_metrics(self, external_id: str) -> Metrics:
        from apps.platforms.metrics import for_platform

        spec = for_platform("facebook")
        body = self.graph_get(
            external_id, fields="shares,comments.limit(0).summary(true),reactions.limit(0).summary(true)"
        )
        values, refused = fetch_without_refused(
            lambda names: self.insight_values(
                self.graph_get(f"{external_id}/insights", metric=",".join(names))
            ),
            list(spec.metrics),
        )
        ours = {spec.metrics[k]: v for k, v in values.items() if k in spec.metrics}
        return Metrics(
            views=ours.get("views", 0),
            likes=int(((body.get("reactions") or {}).get("summary") or {}).get("total_count") or 0),
            comments=int(((body.get("comments") or {}).get("summary") or {}).get("total_count") or 0),
            shares=int((body.get("shares") or {}).get("count") or 0),
            reach=ours.get("reach"),
            clicks=ours.get("clicks"),
            unavailable={spec.metrics[k]: reason for k, reason in refused.items()},
        )

    def fetch_account(self) -> AccountInfo:
        body = self.graph_get(self.page, fields="id,name,username,picture{url},followers_count")
        return AccountInfo(
            external_id=str(body.get("id", "")),
            username=body.get("username") or "",
            display_name=body.get("name", ""),
            picture_url=((body.get("picture") or {}).get("data") or {}).get("url", ""),
            followers=int(body.get("followers_count") or 0),
        )


def is_reel(item: MediaItem) -> bool:
    """A vertical 9:16 video of 3-90 s goes out as a reel; any other as a Page video."""
    vertical = not (item.width and item.height) or abs(item.width / item.height - 9 / 16) <= 0.01
    short = item.seconds is None or REEL_SECONDS[0] <= item.seconds <= REEL_SECONDS[1]
    return vertical and short


def _reel_done(status: dict[str, Any]) -> bool:
    if status.get("video_status") in {"ready", "published", "error"}:
        return True
    phases = [status.get(p) or {} for p in ("processing_phase", "publishing_phase")]
    if phases[0].get("status") == "error":
        return True
    return phases[1].get("status") == "complete"
