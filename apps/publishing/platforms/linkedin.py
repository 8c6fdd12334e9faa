"""LinkedIn Posts API (api.linkedin.com/rest, versioned).

Flow (platforms.yaml linkedin.publish_flow): Images API ``initializeUpload`` -> PUT the
bytes -> (Videos API: parts -> ETags -> ``finalizeUpload``) -> wait until AVAILABLE ->
``POST /rest/posts``; the post URN comes back in ``x-restli-id``; first comment via
``socialActions/{urn}/comments``. Every /rest call carries ``LinkedIn-Version`` and
``X-Restli-Protocol-Version: 2.0.0``.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import quote

import requests

from apps.publishing.platforms.base import (
    AccountInfo,
    MediaItem,
    Metrics,
    OutcomeUnknown,
    PlatformClient,
    PlatformError,
    PostRequest,
    PublishResult,
    normalise_type,
    read_chunk,
)

IMAGE_TYPES = {"image/jpeg", "image/png", "image/gif"}
VIDEO_SECONDS = (3, 1800)
MULTI_IMAGE_RANGE = (2, 20)
RESERVED = re.compile(r"([\\|{}@\[\]()<>#*_~])")
HASHTAG = re.compile(r"(?<![\w#])#(\w+)")


def little_text(text: str) -> str:
    """Escape LinkedIn's "little" format so nothing is silently cut; keep hashtags as hashtags."""
    out: list[str] = []
    pos = 0
    for match in HASHTAG.finditer(text):
        out.append(RESERVED.sub(r"\\\1", text[pos : match.start()]))
        out.append("{hashtag|\\#|" + RESERVED.sub(r"\\\1", match.group(1)) + "}")
        pos = match.end()
    out.append(RESERVED.sub(r"\\\1", text[pos:]))
    return "".join(out)


def urn_path(urn: str) -> str:
    return quote(urn, safe="")


logger = logging.getLogger(__name__)


class LinkedInClient(PlatformClient):
    platform = "linkedin"
    default_base_url = "https://api.linkedin.com"
    error_style = "linkedin"
    token_expired_codes = frozenset({"EXPIRED_ACCESS_TOKEN", "REVOKED_ACCESS_TOKEN", 65600, 65601})
    # 403 ACCESS_DENIED: the grant lacks the endpoint's permission (the author FINDER needs the
    # partner-only r_member_social)
    scope_error_codes = frozenset({"ACCESS_DENIED"})
    #: how long one attempt waits for an uploaded video to be AVAILABLE (the retry resumes it)
    video_wait = 300.0

    @property
    def api_version(self) -> str:
        """``LINKEDIN_API_VERSION`` (YYYYMM): LinkedIn sunsets each version after about a year."""
        from django.conf import settings

        return str(getattr(settings, "LINKEDIN_API_VERSION", "") or "202610")

    def auth_headers(self) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self.access_token}",
            "LinkedIn-Version": self.api_version,
            "X-Restli-Protocol-Version": "2.0.0",
        }

    def check_body(self, resp: requests.Response) -> None:
        """Log LinkedIn's deprecation notice for the version we send (it arrives ahead of the sunset)."""
        notice = {
            k: v
            for k, v in resp.headers.items()
            if k.lower() in {"deprecation", "sunset", "x-li-deprecation"}
        }
        if notice:
            logger.warning(
                "LinkedIn deprecation notice for LinkedIn-Version %s: %s", self.api_version, notice
            )

    def adjust_error(
        self, error: PlatformError, resp: requests.Response, extra: dict[str, Any]
    ) -> PlatformError:
        """An organization page whose member lost the page role: LinkedIn refuses with
        ACCESS_DENIED (a 403) what the grant's scopes allow; say so (a page admin reconnects)."""
        if (
            error.scope_missing
            and self.account_id.startswith("urn:li:organization:")
            and error.status_code == 403
        ):
            error.message = (
                f"LinkedIn refused this call as the organization page {self.account_id}: the member who "
                "connected it must hold an approved ADMINISTRATOR role on the page (and the grant "
                "w_organization_social); a page admin must reconnect it. LinkedIn said: "
                + str((error.raw or {}).get("message") if isinstance(error.raw, dict) else error.raw)[:300]
            )
            error.code = "organization_access_denied"
        return error

    @property
    def author(self) -> str:
        if not self.account_id:
            raise PlatformError("LinkedIn needs the author URN as account_id.", code="missing_author")
        return (
            self.account_id if self.account_id.startswith("urn:li:") else f"urn:li:person:{self.account_id}"
        )

    def validate(self, req: PostRequest) -> None:
        if not req.caption and not req.media:
            raise self.invalid("A LinkedIn post needs text or media.")
        if len(req.caption) > 3000:
            raise self.invalid("LinkedIn posts are limited to 3,000 characters.", "text_too_long")
        if req.videos and len(req.media) != 1:
            raise self.invalid("A LinkedIn video post is exactly one video; it cannot mix images.")
        if len(req.images) > 1 and not MULTI_IMAGE_RANGE[0] <= len(req.images) <= MULTI_IMAGE_RANGE[1]:
            raise self.invalid("A LinkedIn multi-image post holds 2 to 20 images.")
        for item in req.media:
            if not item.readable:
                raise self.invalid(
                    "LinkedIn uploads the file itself: the media needs a loader.", "media_bytes_unavailable"
                )
            ctype = normalise_type(item.content_type)
            if item.kind == "image" and ctype not in IMAGE_TYPES:
                raise self.invalid(
                    f"LinkedIn images must be JPEG, PNG or GIF, not {ctype}.", "invalid_media_format"
                )
            if item.kind == "video":
                if ctype != "video/mp4":
                    raise self.invalid(f"LinkedIn videos must be MP4, not {ctype}.", "invalid_media_format")
                if item.seconds is not None and not VIDEO_SECONDS[0] <= item.seconds <= VIDEO_SECONDS[1]:
                    raise self.invalid("LinkedIn videos last 3 s to 30 min.", "invalid_media_duration")

    # ---- publish --------------------------------------------------------------------

    def publish(self, req: PostRequest) -> PublishResult:
        self.validate(req)
        author = self.author
        body: dict[str, Any] = {
            "author": author,
            "commentary": little_text(req.caption),
            "visibility": "CONNECTIONS" if req.privacy == "connections" else "PUBLIC",
            "distribution": {
                "feedDistribution": "MAIN_FEED",
                "targetEntities": [],
                "thirdPartyDistributionChannels": [],
            },
            "lifecycleState": "PUBLISHED",
            "isReshareDisabledByAuthor": bool(req.options.get("disable_reshare", False)),
        }
        if req.videos:
            media: dict[str, Any] = {
                "id": self._upload_video(req.videos[0], author, req.options.get("_resume"))
            }
            if req.title:
                media["title"] = req.title
            body["content"] = {"media": media}
        elif len(req.images) == 1:
            item = req.images[0]
            body["content"] = {"media": {"id": self._upload_image(item, author), "altText": item.alt_text}}
        elif req.images:
            body["content"] = {
                "multiImage": {
                    "images": [
                        {"id": self._upload_image(i, author), "altText": i.alt_text} for i in req.images
                    ]
                }
            }
        resp = self.request("POST", "/rest/posts", json=body, create=True)
        # The answer is what tells us the post exists: its URN in x-restli-id. A 201 without it
        # created a post we cannot name (and, without the partner permission r_member_social,
        # cannot find): an unknown outcome, never a failure that would post it again.
        urn = resp.headers.get("x-restli-id", "")
        if not urn:
            raise OutcomeUnknown(
                f"LinkedIn answered {resp.status_code} to the post but sent no x-restli-id",
                status_code=resp.status_code,
            )
        raw: dict[str, Any] = {"urn": urn}
        if req.first_comment:
            raw["first_comment"] = self.after_publish(
                "first_comment",
                lambda: self.get_json(
                    "POST",
                    f"/rest/socialActions/{urn_path(urn)}/comments",
                    json={
                        "actor": author,
                        "object": urn,
                        "message": {"text": little_text(req.first_comment)},
                    },
                ),
            )
        return PublishResult(external_id=urn, url=f"https://www.linkedin.com/feed/update/{urn}/", raw=raw)

    def _upload_image(self, item: MediaItem, owner: str) -> str:
        value = self.get_json(
            "POST",
            "/rest/images",
            params={"action": "initializeUpload"},
            json={"initializeUploadRequest": {"owner": owner}},
        )["value"]
        self.request(
            "PUT",
            value["uploadUrl"],
            data=item.read(),
            headers={"Content-Type": normalise_type(item.content_type)},
        )
        self._wait_available("images", value["image"])
        return value["image"]

    def _upload_video(self, item: MediaItem, owner: str, resume: dict[str, Any] | None = None) -> str:
        urn = str((resume or {}).get("linkedin_video") or "")
        if urn:  # uploaded by an earlier attempt whose wait ran out: wait for it, never upload again
            try:
                self._wait_video(urn)
            except PlatformError as exc:
                if exc.status_code != 404:
                    raise
            else:
                return urn
        size = item.byte_size()
        value = self.get_json(
            "POST",
            "/rest/videos",
            params={"action": "initializeUpload"},
            json={
                "initializeUploadRequest": {
                    "owner": owner,
                    "fileSizeBytes": size,
                    "uploadCaptions": False,
                    "uploadThumbnail": False,
                }
            },
        )["value"]
        etags = []
        with item.open() as fh:  # one part in memory at a time
            for part in value["uploadInstructions"]:
                resp = self.request(
                    "PUT",
                    part["uploadUrl"],
                    data=read_chunk(fh, part["firstByte"], part["lastByte"]),
                    headers={"Content-Type": "application/octet-stream"},
                )
                etags.append(resp.headers.get("ETag", "").strip('"'))
        self.request(
            "POST",
            "/rest/videos",
            params={"action": "finalizeUpload"},
            json={
                "finalizeUploadRequest": {
                    "video": value["video"],
                    "uploadToken": value.get("uploadToken", ""),
                    "uploadedPartIds": etags,
                }
            },
        )
        self._wait_video(value["video"])
        return value["video"]

    def _wait_video(self, urn: str) -> None:
        """Wait up to ``video_wait`` for the video; past it, the retry keeps the URN."""
        try:
            self._wait_available("videos", urn, timeout=min(self.poll_timeout, self.video_wait))
        except PlatformError as exc:
            if exc.code == "processing_timeout":
                exc.resume = {"linkedin_video": urn}
                exc.message = f"{exc.message}; the next attempt waits for the same upload"
            raise

    def _wait_available(self, collection: str, urn: str, *, timeout: float | None = None) -> None:
        body = self.poll(
            lambda: self.get_json("GET", f"/rest/{collection}/{urn_path(urn)}"),
            lambda b: b.get("status") in {"AVAILABLE", "PROCESSING_FAILED"},
            what=f"{urn} processing",
            timeout=timeout,
        )
        if body.get("status") == "PROCESSING_FAILED":
            raise self.processing_failed(
                body.get("processingFailureReason") or f"{urn} processing failed", raw=body
            )

    # ---- reads ----------------------------------------------------------------------

    def find_published(self, req: PostRequest) -> PublishResult | None:
        # Rest.li 2.0 wants the URN in the query string encoded, so build it by hand.
        query = (
            f"q=author&author={urn_path(self.author)}&count={self.recent_posts_to_scan}&sortBy=LAST_MODIFIED"
        )
        body = self.get_json("GET", f"/rest/posts?{query}", headers={"X-RestLi-Method": "FINDER"})
        wire = little_text(req.caption)
        for post in body.get("elements") or []:
            if self.same_text(post.get("commentary"), wire):
                urn = post["id"]
                return PublishResult(
                    external_id=urn, url=f"https://www.linkedin.com/feed/update/{urn}/", raw=post
                )
        return None

    def fetch_metrics(self, external_id: str) -> Metrics:
        if self.author.startswith("urn:li:organization:"):
            query = (
                f"q=organizationalEntity&organizationalEntity={urn_path(self.author)}"
                f"&{'ugcPosts' if ':ugcPost:' in external_id else 'shares'}=List({urn_path(external_id)})"
            )
            rows = self.get_json("GET", f"/rest/organizationalEntityShareStatistics?{query}").get(
                "elements"
            ) or [{}]
            stats = rows[0].get("totalShareStatistics") or {}
            return Metrics(
                views=int(stats.get("impressionCount") or 0),
                likes=int(stats.get("likeCount") or 0),
                comments=int(stats.get("commentCount") or 0),
                shares=int(stats.get("shareCount") or 0),
                reach=int(stats.get("uniqueImpressionsCount") or 0),
                clicks=int(stats.get("clickCount") or 0),
            )
        kind = "ugc" if ":ugcPost:" in external_id else "share"
        counts: dict[str, int] = {}
        for metric in ("IMPRESSION", "REACTION", "COMMENT", "RESHARE"):
            query = f"q=entity&entity=({kind}:{urn_path(external_id)})&queryType={metric}&aggregation=TOTAL"
            rows = self.get_json("GET", f"/rest/memberCreatorPostAnalytics?{query}").get("elements") or []
            counts[metric] = sum(int(r.get("count") or 0) for r in rows)
        return Metrics(
            views=counts["IMPRESSION"],
            likes=counts["REACTION"],
            comments=counts["COMMENT"],
            shares=counts["RESHARE"],
        )

    def fetch_account(self) -> AccountInfo:
        author = self.author
        if author.startswith("urn:li:organization:"):
            org_id = author.rsplit(":", 1)[1]
            org = self.get_json("GET", f"/rest/organizations/{org_id}")
            size = self.get_json(
                "GET",
                f"/rest/networkSizes/{urn_path(author)}",
                params={"edgeType": "COMPANY_FOLLOWED_BY_MEMBER"},
            )
            return AccountInfo(
                external_id=author,
                username=org.get("vanityName", ""),
                display_name=org.get("localizedName", ""),
                picture_url="",
                followers=int(size.get("firstDegreeSize") or 0),
            )
        info = self.get_json("GET", "/v2/userinfo")
        followers = self.get_json("GET", "/rest/memberFollowersCount", params={"q": "me"}).get(
            "elements"
        ) or [{}]
        # Member apps get no public handle (vanity name); the sign-in email stands in for it.
        return AccountInfo(
            external_id=f"urn:li:person:{info.get('sub', '')}",
            username=info.get("email", ""),
            display_name=info.get("name", ""),
            picture_url=info.get("picture", ""),
            followers=int(followers[0].get("memberFollowersCount") or 0),
        )
