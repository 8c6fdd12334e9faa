"""Bluesky on the AT Protocol (XRPC over HTTPS against the account's own PDS).

Flow (platforms.yaml bluesky.publish_flow; https://docs.bsky.app/docs/advanced-guides/posts):
the account connects with its handle and an app password (``com.atproto.server.createSession``
at the PDS found from the handle's DID document); the session's ``accessJwt`` (about 2 h) is
renewed with ``refreshSession`` (the ``refreshJwt``, about 2 months), and created again from the
app password when that has expired too. A post is one ``app.bsky.feed.post`` record written with
``com.atproto.repo.createRecord`` under a record key derived from the publication (a TID), so
``find_published`` reads that very record back (``getRecord``) after an unknown outcome. Text is
at most 300 graphemes; links, mentions (handles resolved to DIDs) and hashtags are facets whose
offsets count UTF-8 BYTES (https://docs.bsky.app/docs/advanced-guides/post-richtext). Up to four
images go up with ``uploadBlob`` (recompressed under the blob limit) in ``app.bsky.embed.images``
with their alt text; one video goes through Bluesky's video service (a service token from
``com.atproto.server.getServiceAuth`` for the PDS's ``uploadBlob``, ``app.bsky.video.uploadVideo``,
``getJobStatus`` until the processed blob is on the PDS) into ``app.bsky.embed.video``
(https://docs.bsky.app/docs/tutorials/video); a post with a link and no media gets an
``app.bsky.embed.external`` card
from the page's OpenGraph tags, its image uploaded as the thumbnail. Metrics (likes, reposts,
replies, quotes) come from ``app.bsky.feed.getPostThread``; Bluesky has no view counts.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import uuid
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import requests

from apps.core import outbound
from apps.platforms.text import find_urls, graphemes
from apps.publishing.platforms.base import (
    AccountInfo,
    ChunkReader,
    MediaItem,
    Metrics,
    PlatformClient,
    PlatformError,
    PostRequest,
    PublishResult,
    normalise_type,
)

POST_COLLECTION = "app.bsky.feed.post"
MAX_GRAPHEMES = 300
MAX_TEXT_BYTES = 3000
MAX_IMAGES = 4
#: app.bsky.embed.images: each image blob at most this many bytes (platforms.yaml: 2 MB since
#: 2026-04-08; the lexicon's maxSize before was 1,000,000)
MAX_IMAGE_BYTES = 2_000_000
#: app.bsky.embed.external's thumb blob limit (lexicon maxSize)
MAX_THUMB_BYTES = 1_000_000
IMAGE_TYPES = {"image/jpeg", "image/png", "image/webp", "image/gif"}
#: app.bsky.embed.video's blob (video/mp4, lexicon maxSize 100,000,000 bytes) and the video
#: service's limits (up to 3 minutes)
MAX_VIDEO_BYTES = 100_000_000
MAX_VIDEO_SECONDS = 180
DEFAULT_VIDEO_SERVICE = "https://video.bsky.app"
#: a link card reads at most this much of the page and of its og:image (apps.core.outbound.fetch)
LINK_PAGE_BYTES = 1_000_000
LINK_IMAGE_BYTES = 10_000_000
LINK_AGENT = "Postforge link preview"
#: an XRPC answer (PDS, directory, video service) is at most this long and read within this time
XRPC_ANSWER_BYTES = 5_000_000
XRPC_ANSWER_SECONDS = 60.0
VIDEO_DONE = {"JOB_STATE_COMPLETED", "JOB_STATE_FAILED"}
DEFAULT_SERVICE = "https://bsky.social"
DEFAULT_PLC_DIRECTORY = "https://plc.directory"
_B32 = "234567abcdefghijklmnopqrstuvwxyz"
# a handle: dot-separated DNS labels (https://atproto.com/specs/handle), after an @ not in a word
_MENTION = re.compile(r"(?:^|(?<=[\s(\[]))@(([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,})")
# a hashtag: # then word characters with at least one letter (trailing punctuation stays out)
_TAG = re.compile(r"(?:^|(?<=\s))#(\w*[^\W\d_]\w*)")


def tid_for(created_at: datetime, reference: str) -> str:
    """A record key in the TID format (https://atproto.com/specs/record-key#record-key-type-tid):
    53 bits of microseconds since the epoch and a 10-bit clock id, base32-sortable, 13
    characters. Derived from the publication's creation time and id, so every attempt at one
    publication writes, and finds, the same record."""
    micros = int(created_at.timestamp() * 1_000_000) & ((1 << 53) - 1)
    clock = int(hashlib.sha256(reference.encode()).hexdigest(), 16) & 0x3FF
    value = (micros << 10) | clock
    out = ""
    for _ in range(13):
        out = _B32[value & 31] + out
        value >>= 5
    return out


def byte_offset(text: str, index: int) -> int:
    """The UTF-8 byte offset of character ``index`` of ``text`` (facets count bytes)."""
    return len(text[:index].encode("utf-8"))


def jwt_expiry(token: str) -> datetime | None:
    """The ``exp`` of a session JWT (read, not verified: the PDS verifies it)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return datetime.fromtimestamp(int(claims["exp"]), tz=UTC)
    except (IndexError, KeyError, ValueError, TypeError):
        return None


def recompress(data: bytes, limit: int) -> tuple[bytes, str, tuple[int, int]]:
    """The image as JPEG under ``limit`` bytes (quality first, then size), with its dimensions."""
    from PIL import Image

    image: Image.Image = Image.open(io.BytesIO(data))
    image.load()
    if image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    width, height = image.size
    scale = 1.0
    while True:
        frame = (
            image if scale == 1.0 else image.resize((max(1, int(width * scale)), max(1, int(height * scale))))
        )
        for quality in (90, 80, 70, 60):
            out = io.BytesIO()
            frame.save(out, "JPEG", quality=quality, optimize=True)
            if out.tell() <= limit:
                return out.getvalue(), "image/jpeg", frame.size
        scale *= 0.75


class _OpenGraph(HTMLParser):
    """The page's og:title, og:description and og:image (and <title> as a fallback)."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self._in_title = False
        self.title = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "meta":
            key = values.get("property") or values.get("name") or ""
            if key.startswith("og:") and "content" in values:
                self.meta.setdefault(key, values["content"])
        self._in_title = tag == "title"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False


class BlueskyClient(PlatformClient):
    """One account on its PDS: ``access_token`` is the session's accessJwt, ``account_id`` its DID."""

    platform = "bluesky"
    default_base_url = DEFAULT_SERVICE
    #: a PDS is whatever a DID names: its answers are read under a cap (apps.core.outbound)
    answer_cap = (XRPC_ANSWER_BYTES, XRPC_ANSWER_SECONDS)
    error_style = "xrpc"
    #: https://docs.bsky.app/docs/advanced-guides/rate-limits
    rate_limit_codes = frozenset({"RateLimitExceeded"})
    token_expired_codes = frozenset({"ExpiredToken", "InvalidToken"})
    transient_codes = frozenset({"UpstreamFailure", "InternalServerError"})

    def __init__(self, *, session: requests.Session | None = None, **kwargs: Any) -> None:
        # the PDS, DID documents, the video service and link cards are whatever a DID's owner
        # or a caption names: every call goes through the checked way out (apps.core.outbound)
        super().__init__(session=session or outbound.checked_session(), **kwargs)

    # ---- sessions (app password) -------------------------------------------------------

    def xrpc_url(self, nsid: str) -> str:
        return f"{self.base_url}/xrpc/{nsid}"

    def create_session(self, identifier: str, password: str) -> dict[str, Any]:
        """``com.atproto.server.createSession``: accessJwt, refreshJwt, did, handle."""
        return self.get_json(
            "POST",
            self.xrpc_url("com.atproto.server.createSession"),
            auth=False,
            json={"identifier": identifier, "password": password},
        )

    def refresh_session(self, refresh_jwt: str) -> dict[str, Any]:
        """``com.atproto.server.refreshSession``, authorized by the refreshJwt itself."""
        return self.get_json(
            "POST",
            self.xrpc_url("com.atproto.server.refreshSession"),
            auth=False,
            headers={"Authorization": f"Bearer {refresh_jwt}"},
        )

    def resolve_handle(self, handle: str) -> str:
        """A handle's DID (``com.atproto.identity.resolveHandle``)."""
        body = self.get_json(
            "GET",
            self.xrpc_url("com.atproto.identity.resolveHandle"),
            auth=False,
            params={"handle": handle.lstrip("@").lower()},
        )
        did = str(body.get("did") or "")
        if not did.startswith("did:"):
            raise PlatformError(f"Bluesky could not resolve @{handle}.", code="handle_not_found")
        return did

    def resolve_pds(self, did: str, *, plc_directory: str = DEFAULT_PLC_DIRECTORY) -> str:
        """The PDS that hosts ``did``, from its DID document (did:plc through the PLC directory,
        did:web from https://<host>/.well-known/did.json): the ``#atproto_pds`` service."""
        if did.startswith("did:plc:"):
            url = f"{plc_directory.rstrip('/')}/{quote(did, safe=':')}"
        elif did.startswith("did:web:"):
            host = did.removeprefix("did:web:").replace("%3A", ":")
            url = f"https://{host}/.well-known/did.json"
        else:
            raise PlatformError(f"Unsupported DID method: {did}", code="did_unsupported")
        doc = self.get_json("GET", url, auth=False)
        for service in doc.get("service") or []:
            if (
                isinstance(service, dict)
                and str(service.get("id") or "").endswith("#atproto_pds")
                and service.get("type") == "AtprotoPersonalDataServer"
            ):
                endpoint = str(service.get("serviceEndpoint") or "").rstrip("/")
                try:  # the PDS's address is checked before anything is sent to it
                    outbound.url_check(endpoint, outbound.default_rules(field="handle"))
                except outbound.UnsafeURL as exc:
                    raise PlatformError(
                        f"The DID document of {did} names a PDS that may not be reached "
                        f"({endpoint}): {exc.problems.get('handle') or exc.message}",
                        code="unsafe_pds",
                    ) from None
                return endpoint
        raise PlatformError(f"The DID document of {did} names no PDS.", code="pds_not_found")

    # ---- the public operations ---------------------------------------------------------

    def fetch_account(self) -> AccountInfo:
        body = self.get_json(
            "GET", self.xrpc_url("app.bsky.actor.getProfile"), params={"actor": self.account_id}
        )
        return AccountInfo(
            external_id=str(body.get("did") or self.account_id),
            username=str(body.get("handle") or ""),
            display_name=str(body.get("displayName") or ""),
            picture_url=str(body.get("avatar") or ""),
            followers=int(body.get("followersCount") or 0),
        )

    def validate(self, req: PostRequest) -> None:
        count = len(graphemes(req.caption))
        if count > MAX_GRAPHEMES:
            raise self.invalid(
                f"A Bluesky post holds {MAX_GRAPHEMES} graphemes; this one has {count}.", "text_too_long"
            )
        if len(req.caption.encode("utf-8")) > MAX_TEXT_BYTES:
            raise self.invalid(f"A Bluesky post holds {MAX_TEXT_BYTES} bytes of text.", "text_too_long")
        if req.videos:
            video = req.videos[0]
            if len(req.media) != 1:
                raise self.invalid("A Bluesky post holds one video and nothing else.", "too_many_media")
            if normalise_type(video.content_type) != "video/mp4":
                raise self.invalid(
                    f"Bluesky takes MP4 videos, not {video.content_type}.", "unsupported_media"
                )
            if video.seconds is not None and video.seconds > MAX_VIDEO_SECONDS:
                raise self.invalid(
                    f"Bluesky videos last at most {MAX_VIDEO_SECONDS // 60} minutes.",
                    "invalid_media_duration",
                )
            if not video.readable:
                raise self.invalid(
                    "Bluesky uploads the video itself: it needs its file.", "media_bytes_unavailable"
                )
            if video.byte_size() > MAX_VIDEO_BYTES:
                raise self.invalid(
                    f"A Bluesky video is at most {MAX_VIDEO_BYTES // 1_000_000} MB.", "media_too_large"
                )
        if len(req.images) > MAX_IMAGES:
            raise self.invalid(f"A Bluesky post holds at most {MAX_IMAGES} images.", "too_many_images")
        for item in req.images:
            if normalise_type(item.content_type) not in IMAGE_TYPES:
                raise self.invalid(f"Bluesky does not take {item.content_type} images.", "unsupported_media")

    def record_key(self, req: PostRequest) -> str:
        created = req.options.get("_created_at")
        when = datetime.fromisoformat(created) if isinstance(created, str) and created else datetime.now(UTC)
        return tid_for(when, req.reference or req.caption)

    def publish(self, req: PostRequest) -> PublishResult:
        self.validate(req)
        rkey = self.record_key(req)
        record: dict[str, Any] = {
            "$type": POST_COLLECTION,
            "text": req.caption,
            "createdAt": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        }
        facets = self.facets(req.caption)
        if facets:
            record["facets"] = facets
        if req.videos:
            embed: dict[str, Any] | None = self.video_embed(req.videos[0])
        elif req.images:
            embed = self.images_embed(req)
        else:
            embed = self.link_card(req.caption, facets)
        if embed:
            record["embed"] = embed
        langs = req.options.get("langs")
        if isinstance(langs, list) and langs:
            record["langs"] = [str(x) for x in langs][:3]
        body = self.get_json(
            "POST",
            self.xrpc_url("com.atproto.repo.createRecord"),
            create=True,
            json={"repo": self.account_id, "collection": POST_COLLECTION, "rkey": rkey, "record": record},
        )
        return self.result(str(body.get("uri") or ""), raw=body)

    def result(self, uri: str, raw: dict[str, Any] | None = None) -> PublishResult:
        rkey = uri.rsplit("/", 1)[-1]
        return PublishResult(
            external_id=uri, url=f"https://bsky.app/profile/{self.account_id}/post/{rkey}", raw=raw or {}
        )

    def find_published(self, req: PostRequest) -> PublishResult | None:
        """The record this publication writes, by its record key (``getRecord``)."""
        rkey = self.record_key(req)
        try:
            body = self.get_json(
                "GET",
                self.xrpc_url("com.atproto.repo.getRecord"),
                params={"repo": self.account_id, "collection": POST_COLLECTION, "rkey": rkey},
            )
        except PlatformError as exc:
            if exc.code == "RecordNotFound" or exc.status_code == 404:
                return None
            raise
        return self.result(
            str(body.get("uri") or f"at://{self.account_id}/{POST_COLLECTION}/{rkey}"), raw=body
        )

    def delete(self, external_id: str) -> None:
        """Take the post down (``com.atproto.repo.deleteRecord``)."""
        self.get_json(
            "POST",
            self.xrpc_url("com.atproto.repo.deleteRecord"),
            json={
                "repo": self.account_id,
                "collection": POST_COLLECTION,
                "rkey": external_id.rsplit("/", 1)[-1],
            },
        )

    def fetch_metrics(self, external_id: str) -> Metrics:
        body = self.get_json(
            "GET", self.xrpc_url("app.bsky.feed.getPostThread"), params={"uri": external_id, "depth": 0}
        )
        post = (body.get("thread") or {}).get("post") or {}
        replies = int(post.get("replyCount") or 0)
        reposts = int(post.get("repostCount") or 0)
        return Metrics(
            views=0,
            likes=int(post.get("likeCount") or 0),
            comments=replies,
            shares=reposts,
            replies=replies,
            reposts=reposts,
            quotes=int(post.get("quoteCount") or 0),
            unavailable={"views": "Bluesky does not report views."},
        )

    # ---- rich text -----------------------------------------------------------------------

    def facets(self, text: str) -> list[dict[str, Any]]:
        """Links, mentions (resolved to DIDs; an unknown handle stays plain text) and hashtags,
        each with its UTF-8 byte range."""
        out: list[dict[str, Any]] = []
        taken: list[tuple[int, int]] = []
        for start, end in find_urls(text, bare_domains=False):
            uri = text[start:end]
            out.append(self._facet(text, start, end, {"$type": "app.bsky.richtext.facet#link", "uri": uri}))
            taken.append((start, end))
        for m in _MENTION.finditer(text):
            start, end = m.start(), m.end()
            if any(a <= start < b for a, b in taken):
                continue
            try:
                did = self.resolve_handle(m.group(1))
            except PlatformError:
                continue
            out.append(
                self._facet(text, start, end, {"$type": "app.bsky.richtext.facet#mention", "did": did})
            )
            taken.append((start, end))
        for m in _TAG.finditer(text):
            start, end = m.start(), m.end()
            if any(a <= start < b for a, b in taken) or len(m.group(1)) > 64:
                continue
            out.append(
                self._facet(text, start, end, {"$type": "app.bsky.richtext.facet#tag", "tag": m.group(1)})
            )
        out.sort(key=lambda f: f["index"]["byteStart"])
        return out

    @staticmethod
    def _facet(text: str, start: int, end: int, feature: dict[str, Any]) -> dict[str, Any]:
        return {
            "index": {"byteStart": byte_offset(text, start), "byteEnd": byte_offset(text, end)},
            "features": [feature],
        }

    # ---- embeds --------------------------------------------------------------------------

    def upload_blob(self, data: bytes, content_type: str) -> dict[str, Any]:
        body = self.get_json(
            "POST",
            self.xrpc_url("com.atproto.repo.uploadBlob"),
            data=data,
            headers={"Content-Type": content_type},
        )
        blob = body.get("blob")
        if not isinstance(blob, dict):
            raise PlatformError(
                "Bluesky answered uploadBlob without a blob.", code="bad_response", retryable=True
            )
        return blob

    def images_embed(self, req: PostRequest) -> dict[str, Any]:
        images = []
        for item in req.images:
            data, content_type = item.read(), normalise_type(item.content_type)
            size = (item.width, item.height)
            if len(data) > MAX_IMAGE_BYTES:
                data, content_type, size = recompress(data, MAX_IMAGE_BYTES)
            entry: dict[str, Any] = {
                "alt": item.alt_text or "",
                "image": self.upload_blob(data, content_type),
            }
            if size[0] and size[1]:
                entry["aspectRatio"] = {"width": size[0], "height": size[1]}
            images.append(entry)
        return {"$type": "app.bsky.embed.images", "images": images}

    @property
    def video_service(self) -> str:
        from django.conf import settings

        return str(getattr(settings, "BLUESKY_VIDEO_SERVICE_URL", "") or DEFAULT_VIDEO_SERVICE).rstrip("/")

    def service_token(self, lxm: str, *, aud: str, seconds: int = 1800) -> str:
        """A token the PDS signs for another service (``com.atproto.server.getServiceAuth``),
        bound to one method (``lxm``) and audience."""
        import time

        body = self.get_json(
            "GET",
            self.xrpc_url("com.atproto.server.getServiceAuth"),
            params={"aud": aud, "lxm": lxm, "exp": int(time.time()) + seconds},
        )
        token = str(body.get("token") or "")
        if not token:
            raise PlatformError("Bluesky gave no service token.", code="bad_response", retryable=True)
        return token

    def upload_limits(self) -> dict[str, Any]:
        """``app.bsky.video.getUploadLimits`` on the video service (a service token for it):
        ``canUpload``, ``remainingDailyVideos``, ``remainingDailyBytes``, ``message``, ``error``
        (https://docs.bsky.app/docs/tutorials/video)."""
        aud = f"did:web:{urlsplit(self.video_service).hostname}"
        token = self.service_token("app.bsky.video.getUploadLimits", aud=aud, seconds=300)
        return self.get_json(
            "GET",
            f"{self.video_service}/xrpc/app.bsky.video.getUploadLimits",
            auth=False,
            headers={"Authorization": f"Bearer {token}"},
        )

    def video_refusal(self, size: int) -> str | None:
        """Why the video service would refuse a video of ``size`` bytes from this account now
        (its upload limits), or None."""
        limits = self.upload_limits()
        said = str(limits.get("message") or limits.get("error") or "").strip()
        if limits.get("canUpload") is False:
            return "Bluesky's video service does not take videos from this account now" + (
                f": {said}" if said else "."
            )
        videos, left = limits.get("remainingDailyVideos"), limits.get("remainingDailyBytes")
        if isinstance(videos, int) and videos < 1:
            return "This Bluesky account has used up today's videos (app.bsky.video.getUploadLimits)."
        if isinstance(left, int) and left < size:
            return (
                f"This Bluesky account may upload {left:,} more bytes of video today; "
                f"this video is {size:,} bytes."
            )
        return None

    def video_embed(self, item: MediaItem) -> dict[str, Any]:
        """Check the account's upload limits, upload the video to the video service with a
        token for the PDS's ``uploadBlob`` (the service stores the processed video there), wait
        for its job, and embed the blob."""
        size = item.byte_size()
        refusal = self.video_refusal(size)
        if refusal:
            raise self.invalid(refusal, "video_upload_limit")
        pds_did = f"did:web:{urlsplit(self.base_url).hostname}"
        token = self.service_token("com.atproto.repo.uploadBlob", aud=pds_did)
        try:
            with item.open() as fh:  # streamed from storage, never read whole
                answer = self.get_json(
                    "POST",
                    f"{self.video_service}/xrpc/app.bsky.video.uploadVideo",
                    auth=False,
                    params={"did": self.account_id, "name": f"{uuid.uuid4().hex}.mp4"},
                    data=ChunkReader(fh, 0, size - 1),
                    headers={"Authorization": f"Bearer {token}", "Content-Type": "video/mp4"},
                )
        except PlatformError as exc:
            # the same video uploaded before (a retry): the service names the job it already has
            raw = exc.raw if isinstance(exc.raw, dict) else {}
            if exc.code != "already_exists" or not raw.get("jobId"):
                raise
            answer = {"jobStatus": raw}
        nested = answer.get("jobStatus")
        job: dict[str, Any] = nested if isinstance(nested, dict) else answer
        job_id = str(job.get("jobId") or "")
        if not job_id:
            raise PlatformError("Bluesky's video service named no job.", code="bad_response", retryable=True)
        if job.get("state") not in VIDEO_DONE:

            def status() -> dict[str, Any]:
                body = self.get_json(
                    "GET",
                    f"{self.video_service}/xrpc/app.bsky.video.getJobStatus",
                    auth=False,
                    params={"jobId": job_id},
                )
                found = body.get("jobStatus")
                return found if isinstance(found, dict) else {}

            job = self.poll(status, lambda st: st.get("state") in VIDEO_DONE, what=f"video job {job_id}")
        if job.get("state") == "JOB_STATE_FAILED" or not isinstance(job.get("blob"), dict):
            reason = str(job.get("error") or job.get("message") or "Bluesky could not process the video")
            failure = f" ({job['failureCode']})" if job.get("failureCode") else ""
            raise self.processing_failed(f"{reason}{failure}", raw=job)
        embed: dict[str, Any] = {"$type": "app.bsky.embed.video", "video": job["blob"]}
        if item.alt_text:
            embed["alt"] = item.alt_text
        if item.width and item.height:
            embed["aspectRatio"] = {"width": item.width, "height": item.height}
        return embed

    def link_card(self, text: str, facets: list[dict[str, Any]]) -> dict[str, Any] | None:
        """An ``app.bsky.embed.external`` card for the post's first link, from the page's
        OpenGraph tags (the page unreachable: no card, the link stays a facet)."""
        links = [f["features"][0]["uri"] for f in facets if f["features"][0]["$type"].endswith("#link")]
        if not links:
            return None
        uri = links[0]
        try:  # the checked way out: public addresses only, each redirect hop checked, capped
            page = outbound.fetch(
                self.session, uri, max_bytes=LINK_PAGE_BYTES, headers={"User-Agent": LINK_AGENT}
            )
        except (outbound.UnsafeURL, outbound.TooLarge, TimeoutError, requests.RequestException):
            return None
        if not page.ok:
            return None
        parser = _OpenGraph()
        parser.feed(page.text[:LINK_PAGE_BYTES])
        external: dict[str, Any] = {
            "uri": uri,
            "title": (parser.meta.get("og:title") or parser.title or urlsplit(uri).hostname or uri).strip()[
                :300
            ],
            "description": (parser.meta.get("og:description") or "").strip()[:1000],
        }
        image = parser.meta.get("og:image")
        if image:
            try:
                thumb = outbound.fetch(
                    self.session,
                    urljoin(page.url or uri, image),
                    max_bytes=LINK_IMAGE_BYTES,
                    headers={"User-Agent": LINK_AGENT},
                )
                if thumb.ok and thumb.content:
                    data, content_type = thumb.content, normalise_type(thumb.headers.get("Content-Type", ""))
                    if len(data) > MAX_THUMB_BYTES or content_type not in IMAGE_TYPES:
                        data, content_type, _ = recompress(data, MAX_THUMB_BYTES)
                    external["thumb"] = self.upload_blob(data, content_type)
            except (outbound.UnsafeURL, outbound.TooLarge, TimeoutError, requests.RequestException, OSError):
                pass
        return {"$type": "app.bsky.embed.external", "external": external}
