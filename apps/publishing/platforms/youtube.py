"""YouTube Data API v3 (www.googleapis.com).

Flow (platforms.yaml youtube.publish_flow): resumable ``videos.insert``: POST the
metadata with ``uploadType=resumable`` -> ``Location`` session URI -> PUT the bytes in
256 KiB-multiple chunks (308 Resume Incomplete between them; after a dropped chunk the
session is queried with ``Content-Range: bytes */TOTAL`` and resumed) -> wait for
processing -> first comment with ``commentThreads.insert``.
"""

from __future__ import annotations

from typing import Any, BinaryIO

import requests

from apps.publishing.platforms.base import (
    AccountInfo,
    Metrics,
    OutcomeUnknown,
    PlatformClient,
    PlatformError,
    PostRequest,
    PublishResult,
    json_body,
    normalise_type,
    read_chunk,
    seconds_until_pacific_midnight,
)

KIB256 = 256 * 1024
VIDEO_TYPES = {
    "video/mp4",
    "video/quicktime",
    "video/x-msvideo",
    "video/x-ms-wmv",
    "video/x-flv",
    "video/3gpp",
    "video/webm",
    "video/mpeg",
}
PRIVACY = {
    "public": "public",
    "unlisted": "unlisted",
    "private": "private",
    "friends": "private",
    "followers": "private",
}
QUOTA_REASONS = frozenset({"quotaExceeded", "uploadLimitExceeded", "dailyLimitExceeded"})


class YouTubeClient(PlatformClient):
    platform = "youtube"
    default_base_url = "https://www.googleapis.com"
    error_style = "google"
    rate_limit_codes = frozenset({"rateLimitExceeded", "userRateLimitExceeded", *QUOTA_REASONS})
    token_expired_codes = frozenset({"authError", "UNAUTHENTICATED"})
    scope_error_codes = frozenset({"insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT"})
    transient_codes = frozenset({"backendError", "internalError"})
    chunk_size = 32 * KIB256  # 8 MiB
    max_resumes = 3

    def limit_is_app_wide(self, error: PlatformError, resp: requests.Response) -> bool:
        """The daily quota is the Cloud project's, shared by every channel; rateLimitExceeded
        and userRateLimitExceeded limit one channel's calls."""
        return error.code in QUOTA_REASONS

    def adjust_error(
        self, error: PlatformError, resp: requests.Response, extra: dict[str, Any]
    ) -> PlatformError:
        if error.code in QUOTA_REASONS and error.retry_after is None:
            # Daily project quota: retrying before it resets only burns attempts.
            error.retry_after = seconds_until_pacific_midnight()
        if error.code == "quotaExceeded":
            error.message = f"{error.message} ({quota_explanation(_request_url(resp))})"
        return error

    def validate(self, req: PostRequest) -> None:
        if len(req.media) != 1 or req.media[0].kind != "video":
            raise self.invalid("A YouTube upload is exactly one video.")
        video = req.media[0]
        if normalise_type(video.content_type) not in VIDEO_TYPES:
            raise self.invalid(
                f"YouTube does not accept {video.content_type} videos.", "invalid_media_format"
            )
        if not video.readable:
            raise self.invalid(
                "YouTube uploads the file itself: the video needs a loader.", "media_bytes_unavailable"
            )
        title = req.title or req.caption.split("\n", 1)[0]
        if not title.strip():
            raise self.invalid("A YouTube video needs a title.")
        if len(title) > 100:
            raise self.invalid("YouTube titles are limited to 100 characters.", "text_too_long")
        if len(req.caption.encode("utf-8")) > 5000:
            raise self.invalid("YouTube descriptions are limited to 5,000 bytes.", "text_too_long")
        if any(ch in title + req.caption for ch in "<>"):
            raise self.invalid(
                "YouTube titles and descriptions may not contain < or >.", "invalid_characters"
            )
        if req.privacy not in PRIVACY:
            raise self.invalid(f"YouTube has no privacy status {req.privacy!r}.")
        if req.post_type == "short":
            if video.seconds is not None and video.seconds > 180:
                raise self.invalid("YouTube Shorts last up to 180 s.", "invalid_media_duration")
            if video.width and video.height and video.width > video.height:
                raise self.invalid("YouTube Shorts are vertical or square.", "invalid_media_dimensions")

    @staticmethod
    def synthetic(req: PostRequest) -> bool:
        """``status.containsSyntheticMedia`` (YouTube's altered or synthetic content label): what
        the client said (``containsSyntheticMedia`` on the schedule), else the content's AI flag
        (media or both), else how the video was made (``PostRequest.media_made_with_ai``)."""
        return req.media_made_with_ai

    def metadata(self, req: PostRequest) -> dict[str, Any]:
        snippet: dict[str, Any] = {
            "title": req.title or req.caption.split("\n", 1)[0],
            "description": req.caption,
            "categoryId": str(req.options.get("category_id", "22")),
        }
        tags = req.options.get("tags")
        if tags:
            snippet["tags"] = list(tags)
        status: dict[str, Any] = {
            "privacyStatus": PRIVACY[req.privacy],
            "selfDeclaredMadeForKids": bool(req.options.get("made_for_kids", False)),
            "containsSyntheticMedia": self.synthetic(req),
        }
        if req.options.get("publish_at"):
            status.update(privacyStatus="private", publishAt=req.options["publish_at"])
        return {"snippet": snippet, "status": status}

    # ---- publish --------------------------------------------------------------------

    def publish(self, req: PostRequest) -> PublishResult:
        self.validate(req)
        video = req.media[0]
        size = video.byte_size()
        ctype = normalise_type(video.content_type)
        start = self.request(
            "POST",
            "/upload/youtube/v3/videos",
            params={
                "uploadType": "resumable",
                "part": "snippet,status",
                "notifySubscribers": "true" if req.options.get("notify_subscribers", True) else "false",
            },
            json=self.metadata(req),
            headers={
                "Content-Type": "application/json; charset=UTF-8",
                "X-Upload-Content-Length": str(size),
                "X-Upload-Content-Type": ctype,
            },
        )
        session_uri = start.headers.get("Location")
        if not session_uri:
            raise PlatformError(
                "YouTube gave no upload session URI", status_code=start.status_code, retryable=True
            )
        with video.open() as fh:  # sent from the stored file, one chunk in memory at a time
            resource = self._upload(session_uri, fh, size, ctype)
        video_id = resource["id"]
        resource = self._wait_for_processing(video_id, resource)
        visibility = self.read_visibility(video_id, resource)
        raw: dict[str, Any] = {"video_id": video_id, "status": resource.get("status", {})}
        if req.first_comment:
            raw["first_comment"] = self.after_publish(
                "first_comment", lambda: self.comment(video_id, req.first_comment)
            )
        url = (
            f"https://www.youtube.com/shorts/{video_id}"
            if req.post_type == "short"
            else f"https://www.youtube.com/watch?v={video_id}"
        )
        return PublishResult(external_id=video_id, url=url, raw=raw, visibility=visibility)

    def read_visibility(self, video_id: str, resource: dict[str, Any]) -> str:
        """``status.privacyStatus`` as YouTube holds it after the upload (``videos.list
        part=status``): a project Google has not audited gets every upload locked private,
        whatever the metadata asked. The processing reads carry it; otherwise one more read,
        which may fail without failing the publish (the video exists)."""
        if "processing_wait_error" not in resource:
            status = (resource.get("status") or {}).get("privacyStatus")
            if status:
                return str(status)

        def read() -> str:
            items = self.get_json("GET", "/youtube/v3/videos", params={"part": "status", "id": video_id}).get(
                "items"
            ) or [{}]
            return str((items[0].get("status") or {}).get("privacyStatus") or "")

        found = self.after_publish("read_visibility", read)
        return found if isinstance(found, str) else ""

    def _upload(self, session_uri: str, fh: BinaryIO, total: int, ctype: str) -> dict[str, Any]:
        offset = 0
        resumes = 0
        while True:
            end = min(offset + self.chunk_size, total)
            final = end == total
            try:
                resp = self.request(
                    "PUT",
                    session_uri,
                    create=final,
                    ok_statuses=(308,),
                    data=read_chunk(fh, offset, end - 1),
                    headers={"Content-Type": ctype, "Content-Range": f"bytes {offset}-{end - 1}/{total}"},
                )
            except PlatformError as exc:
                if not (exc.code in {"network", "outcome_unknown"} or (exc.status_code or 0) >= 500):
                    raise
                if resumes >= self.max_resumes:
                    raise
                resumes += 1
                resp = self._session_status(session_uri, total, final, exc)
            if resp.status_code in (200, 201):
                return json_body(resp)
            offset = _next_offset(resp)

    def _session_status(
        self, session_uri: str, total: int, final: bool, cause: PlatformError
    ) -> requests.Response:
        """Ask the session how much it holds; a completed upload answers with the video."""
        try:
            return self.request(
                "PUT",
                session_uri,
                ok_statuses=(308,),
                data=b"",
                headers={"Content-Range": f"bytes */{total}"},
            )
        except PlatformError as exc:
            if final and isinstance(cause, OutcomeUnknown):
                raise cause from exc
            raise

    def _wait_for_processing(self, video_id: str, resource: dict[str, Any]) -> dict[str, Any]:
        status = resource.get("status") or {}
        if status.get("uploadStatus") in {"failed", "rejected"}:
            raise self.processing_failed(
                status.get("failureReason") or status.get("rejectionReason") or "", raw=resource
            )

        def fetch() -> dict[str, Any]:
            items = self.get_json(
                "GET", "/youtube/v3/videos", params={"part": "status,processingDetails", "id": video_id}
            ).get("items") or [{}]
            return items[0]

        try:
            latest = self.poll(
                fetch,
                lambda v: (
                    (v.get("processingDetails") or {}).get("processingStatus", "succeeded") != "processing"
                ),
                what=f"video {video_id} processing",
            )
        except PlatformError as exc:
            # The video exists; a slow or unreadable processing status must not cause a re-upload.
            return {**resource, "processing_wait_error": exc.message}
        processing = latest.get("processingDetails") or {}
        upload = latest.get("status") or {}
        if processing.get("processingStatus") in {"failed", "terminated"} or upload.get("uploadStatus") in {
            "failed",
            "rejected",
        }:
            reason = (
                processing.get("processingFailureReason")
                or upload.get("failureReason")
                or upload.get("rejectionReason")
                or "processing failed"
            )
            raise self.processing_failed(reason, raw=latest)
        return {**resource, **latest}

    def comment(self, video_id: str, text: str) -> dict[str, Any]:
        return self.get_json(
            "POST",
            "/youtube/v3/commentThreads",
            params={"part": "snippet"},
            # snippet.channelId is listed as required by commentThreads.insert
            json={
                "snippet": {
                    "channelId": self.account_id,
                    "videoId": video_id,
                    "topLevelComment": {"snippet": {"textOriginal": text}},
                }
            },
        )

    # ---- reads ----------------------------------------------------------------------

    def _my_channel(self, part: str) -> dict[str, Any]:
        items = (
            self.get_json("GET", "/youtube/v3/channels", params={"part": part, "mine": "true"}).get("items")
            or []
        )
        if not items:
            raise PlatformError(
                "This Google account has no YouTube channel.", status_code=404, code="channelNotFound"
            )
        return items[0]

    def find_published(self, req: PostRequest) -> PublishResult | None:
        uploads = self._my_channel("contentDetails")["contentDetails"]["relatedPlaylists"]["uploads"]
        body = self.get_json(
            "GET",
            "/youtube/v3/playlistItems",
            params={"part": "snippet", "playlistId": uploads, "maxResults": self.recent_posts_to_scan},
        )
        title = self.metadata(req)["snippet"]["title"]
        for item in body.get("items") or []:
            snippet = item.get("snippet") or {}
            if self.same_text(snippet.get("title"), title) and self.same_text(
                snippet.get("description"), req.caption
            ):
                video_id = (snippet.get("resourceId") or {}).get("videoId", "")
                return PublishResult(
                    external_id=video_id, url=f"https://www.youtube.com/watch?v={video_id}", raw=item
                )
        return None

    def fetch_metrics(self, external_id: str) -> Metrics:
        items = self.get_json(
            "GET", "/youtube/v3/videos", params={"part": "statistics", "id": external_id}
        ).get("items")
        if not items:
            raise PlatformError(f"YouTube has no video {external_id}", status_code=404, code="videoNotFound")
        stats = items[0].get("statistics") or {}
        # The Data API has no share count; YouTube Analytics has it per channel report.
        return Metrics(
            views=int(stats.get("viewCount") or 0),
            likes=int(stats.get("likeCount") or 0),
            comments=int(stats.get("commentCount") or 0),
            shares=0,
        )

    def fetch_account(self) -> AccountInfo:
        channel = self._my_channel("snippet,statistics")
        snippet = channel.get("snippet") or {}
        stats = channel.get("statistics") or {}
        return AccountInfo(
            external_id=channel.get("id", ""),
            username=snippet.get("customUrl", ""),
            display_name=snippet.get("title", ""),
            picture_url=((snippet.get("thumbnails") or {}).get("default") or {}).get("url", ""),
            followers=int(stats.get("subscriberCount") or 0),
        )


def _next_offset(resp: requests.Response) -> int:
    """308 carries ``Range: bytes=0-N`` once the session holds bytes; none means nothing yet."""
    value = resp.headers.get("Range", "")
    if not value:
        return 0
    return int(value.rsplit("-", 1)[1]) + 1


def _request_url(resp: requests.Response) -> str:
    request = getattr(resp, "request", None)
    return str(getattr(request, "url", "") or "")


def quota_explanation(url: str) -> str:
    """What a quotaExceeded means, by the call that met it (Google's quota table,
    https://developers.google.com/youtube/data/determine_quota_cost): an upload
    (videos.insert) draws on its own bucket, 100 uploads a day per Cloud project at 1 unit
    each; every other call (a first comment: commentThreads.insert, 50 units; a thumbnail, 50;
    a caption track, 400; reads, 1) on the project's 10,000 units a day. Both are the project's,
    shared by every customer, and reset at midnight Pacific."""
    if "/upload/youtube/v3/videos" in url or url.rstrip("/").endswith("/youtube/v3/videos"):
        spent = (
            "the upload quota of this app's Google Cloud project is used up: videos.insert has a "
            "bucket of its own, 100 uploads a day (1 unit each), shared by every customer; the "
            "project's 10,000 daily units for the other calls are not what ran out"
        )
    else:
        spent = (
            "the 10,000 daily units of this app's Google Cloud project are used up, for every "
            "customer at once (a first comment costs 50 units, a thumbnail 50, a caption track "
            "400; uploads have a bucket of their own, 100 a day)"
        )
    return (
        f"YouTube quotaExceeded: {spent}. It resets at midnight Pacific time, when the post is "
        "tried again; the operator can ask Google for more through the quota extension form, "
        "https://developers.google.com/youtube/v3/guides/quota_and_compliance_audits"
    )
