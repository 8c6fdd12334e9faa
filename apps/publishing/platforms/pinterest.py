"""Pinterest API v5 (api.pinterest.com; Trial-access apps write to api-sandbox.pinterest.com).

Flow (platforms.yaml pinterest.publish_flow): every Pin needs ``options["board_id"]``.
Image -> ``POST /v5/pins`` with ``media_source.source_type=image_url`` (2-5 images:
``multiple_image_urls``). Video -> ``POST /v5/media`` -> multipart upload to the
returned ``upload_url`` with its ``upload_parameters`` -> poll ``GET /v5/media/{id}``
until ``succeeded`` -> Pin with ``video_id`` and a cover. Pinterest has no comment API,
so there is no first comment.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from apps.platforms.text import find_urls
from apps.publishing.platforms.base import (
    AccountInfo,
    ChunkReader,
    MediaItem,
    Metrics,
    PlatformClient,
    PlatformError,
    PostRequest,
    PublishResult,
    check_https,
    normalise_type,
)

IMAGE_TYPES = {"image/jpeg", "image/png", "image/webp", "image/gif", "image/bmp", "image/tiff"}
VIDEO_TYPES = {"video/mp4", "video/quicktime", "video/x-m4v"}
VIDEO_SECONDS = (4, 900)
CAROUSEL_RANGE = (2, 5)
REFERENCE_PREFIX = "postforge:"
#: "Your application consumer type is not supported." (Trial access on the production host)
APP_CONFIGURATION_CODE = 29


class PinterestClient(PlatformClient):
    platform = "pinterest"
    default_base_url = "https://api.pinterest.com"
    error_style = "pinterest"
    rate_limit_codes = frozenset({8})
    token_expired_codes = frozenset({2})
    #: "Your token does not have sufficient permissions to perform this operation" (HTTP 401)
    scope_error_codes = frozenset({3})

    def adjust_error(self, error: PlatformError, resp: Any, extra: dict[str, Any]) -> PlatformError:
        """Code 29: the app is not allowed this call (a Trial-access app writing to production):
        an app configuration error, not the post's, with Pinterest's reason and the fix."""
        if error.code == APP_CONFIGURATION_CODE:
            error.retryable, error.token_expired = False, False
            error.message = (
                f"{error.message} (Pinterest code 29: the app's configuration refuses this call. A Trial-access "
                "app must write to https://api-sandbox.pinterest.com: the operator sets PINTEREST_API_URL, or "
                "gets Standard access)"
            )
        return error

    def is_scope_error(self, status: int, code: Any, body: Any) -> bool:
        # code 3 also comes with other statuses; with a 401 it is the grant, not the token
        return status == 401 and code in self.scope_error_codes

    def validate(self, req: PostRequest) -> None:
        if not req.options.get("board_id"):
            raise self.invalid("Every Pin needs a board: options['board_id'].", "board_required")
        if not req.media:
            raise self.invalid("A Pin needs an image or a video.")
        if len(req.title) > 100 or len(req.caption) > 500:
            raise self.invalid("Pin titles hold 100 and descriptions 500 characters.", "text_too_long")
        if req.videos:
            self._validate_video(req)
            return
        self._validate_images(req)

    def _validate_video(self, req: PostRequest) -> None:
        if len(req.media) != 1:
            raise self.invalid("A video Pin is exactly one video.")
        video = req.videos[0]
        if normalise_type(video.content_type) not in VIDEO_TYPES:
            raise self.invalid(
                f"Pinterest videos must be MP4, MOV or M4V, not {video.content_type}.",
                "invalid_media_format",
            )
        if not video.readable:
            raise self.invalid(
                "Pinterest video upload needs the file: the video has none to read.",
                "media_bytes_unavailable",
            )
        if video.seconds is not None and not VIDEO_SECONDS[0] <= video.seconds <= VIDEO_SECONDS[1]:
            raise self.invalid("Pinterest videos last 4-900 s.", "invalid_media_duration")
        if not video.thumbnail_url and "cover_image_key_frame_time" not in req.options:
            raise self.invalid("A video Pin needs a cover image (thumbnail_url).", "cover_required")

    def _validate_images(self, req: PostRequest) -> None:
        if len(req.images) > 1:
            if not CAROUSEL_RANGE[0] <= len(req.images) <= CAROUSEL_RANGE[1]:
                raise self.invalid("A carousel Pin holds 2 to 5 images.")
            if len({(i.width, i.height) for i in req.images}) > 1:
                raise self.invalid(
                    "Carousel Pin images must share the same dimensions.", "invalid_media_dimensions"
                )
        for item in req.images:
            check_https(item, self.platform)
            if normalise_type(item.content_type) not in IMAGE_TYPES:
                raise self.invalid(
                    f"Pinterest does not accept {item.content_type} images.", "invalid_media_format"
                )
            if len(item.alt_text) > 500:
                raise self.invalid("Pinterest alt text is limited to 500 characters.")

    # ---- publish --------------------------------------------------------------------

    def publish(self, req: PostRequest) -> PublishResult:
        self.validate(req)
        body: dict[str, Any] = {
            "board_id": str(req.options["board_id"]),
            "title": req.title,
            "description": req.caption,
        }
        for key in ("board_section_id", "link", "dominant_color"):
            if req.options.get(key):
                body[key] = req.options[key]
        if "link" not in body:  # a Pin's link is its destination: the post's own link, unless one is given
            spans = find_urls(req.caption, bare_domains=False)
            if spans:
                body["link"] = req.caption[spans[0][0] : spans[0][1]]
        note = req.options.get("note") or (f"{REFERENCE_PREFIX}{req.reference}" if req.reference else "")
        if note:
            # A Pin's note is private to the account: it carries our reference for reconciliation.
            body["note"] = note
        if req.videos:
            video = req.videos[0]
            media_id = self._upload_video(video, normalise_type(video.content_type))
            source: dict[str, Any] = {"source_type": "video_id", "media_id": media_id}
            if video.thumbnail_url:
                source["cover_image_url"] = video.thumbnail_url
            else:
                source["cover_image_key_frame_time"] = req.options["cover_image_key_frame_time"]
            body["media_source"] = source
        elif len(req.images) == 1:
            item = req.images[0]
            body["media_source"] = {"source_type": "image_url", "url": item.url}
            if item.alt_text:
                body["alt_text"] = item.alt_text
        else:
            body["media_source"] = {
                "source_type": "multiple_image_urls",
                "items": [{"url": i.url, "title": req.title, "description": req.caption} for i in req.images],
            }
            alts = [i.alt_text for i in req.images if i.alt_text]
            if alts:
                body["alt_text"] = alts[0]
        pin = self.get_json("POST", "/v5/pins", json=body, create=True)
        return PublishResult(
            external_id=str(pin["id"]), url=f"https://www.pinterest.com/pin/{pin['id']}/", raw=pin
        )

    def _upload_video(self, video: MediaItem, ctype: str) -> str:
        from requests_toolbelt.multipart.encoder import MultipartEncoder

        registered = self.get_json("POST", "/v5/media", json={"media_type": "video"})
        media_id = str(registered["media_id"])
        # The upload URL is a presigned storage form: its fields, then the file; no bearer token.
        # The form is streamed (requests-toolbelt reads the stored file a block at a time), as
        # the other platforms' uploads are, never loaded whole into memory.
        fields = {str(k): str(v) for k, v in (registered.get("upload_parameters") or {}).items()}
        size = video.byte_size()
        with video.open() as fh:
            body = ChunkReader(fh, 0, size - 1)
            form = MultipartEncoder(fields={**fields, "file": ("video", body, ctype)})
            self.request(
                "POST",
                registered["upload_url"],
                auth=False,
                data=form,
                headers={"Content-Type": form.content_type},
            )
        status = self.poll(
            lambda: self.get_json("GET", f"/v5/media/{media_id}"),
            lambda b: b.get("status") in {"succeeded", "failed"},
            what=f"media {media_id}",
        )
        if status.get("status") == "failed":
            raise self.processing_failed(status.get("message") or "video processing failed", raw=status)
        return media_id

    # ---- reads ----------------------------------------------------------------------

    def find_published(self, req: PostRequest) -> PublishResult | None:
        board = req.options.get("board_id")
        if not board:
            raise self.invalid("Every Pin needs a board: options['board_id'].", "board_required")
        body = self.get_json(
            "GET", f"/v5/boards/{board}/pins", params={"page_size": self.recent_posts_to_scan}
        )
        marker = f"{REFERENCE_PREFIX}{req.reference}" if req.reference else None
        for pin in body.get("items") or []:
            by_reference = marker is not None and pin.get("note") == marker
            by_text = self.same_text(pin.get("description"), req.caption) and self.same_text(
                pin.get("title"), req.title
            )
            if by_reference or by_text:
                return PublishResult(
                    external_id=str(pin["id"]), url=f"https://www.pinterest.com/pin/{pin['id']}/", raw=pin
                )
        return None

    def fetch_metrics(self, external_id: str) -> Metrics:
        today = datetime.now(UTC).date()
        body = self.get_json(
            "GET",
            f"/v5/pins/{external_id}/analytics",
            params={
                "start_date": (today - timedelta(days=89)).isoformat(),
                "end_date": today.isoformat(),
                "metric_types": "IMPRESSION,SAVE,TOTAL_COMMENTS,TOTAL_REACTIONS",
            },
        )
        summary = (body.get("all") or {}).get("summary_metrics") or {}
        return Metrics(
            views=int(summary.get("IMPRESSION") or 0),
            likes=int(summary.get("TOTAL_REACTIONS") or 0),
            comments=int(summary.get("TOTAL_COMMENTS") or 0),
            shares=int(summary.get("SAVE") or 0),
        )

    def fetch_account(self) -> AccountInfo:
        body = self.get_json("GET", "/v5/user_account")
        return AccountInfo(
            external_id=str(body.get("id") or body.get("username", "")),
            username=body.get("username", ""),
            display_name=body.get("business_name") or body.get("username", ""),
            picture_url=body.get("profile_image", ""),
            followers=int(body.get("follower_count") or 0),
        )
