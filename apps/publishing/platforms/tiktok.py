"""TikTok Content Posting API (open.tiktokapis.com), Direct Post.

Flow (platforms.yaml tiktok.publish_flow): ``creator_info/query`` (privacy options, max
duration) -> ``video/init`` with FILE_UPLOAD (sequential chunked PUTs with
Content-Range) or PULL_FROM_URL; photos -> ``content/init`` (PULL_FROM_URL only) ->
poll ``status/fetch``. TikTok answers ``{data, error: {code, message, log_id}}`` and
``error.code`` is ``ok`` on success.
"""

from __future__ import annotations

import re
from typing import Any

import requests

from apps.publishing.platforms.base import (
    AccountInfo,
    Metrics,
    OutcomeUnknown,
    PlatformClient,
    PlatformError,
    PostRequest,
    PublishResult,
    Quota,
    check_https,
    json_body,
    normalise_type,
    read_chunk,
)

MB = 1024 * 1024
MIN_CHUNK = 5 * MB
MAX_CHUNK = 64 * MB
VIDEO_TYPES = {"video/mp4", "video/webm", "video/quicktime"}
PHOTO_TYPES = {"image/jpeg", "image/webp"}
PHOTO_MAX = 35
PRIVACY_LEVELS = {
    "public": "PUBLIC_TO_EVERYONE",
    "friends": "MUTUAL_FOLLOW_FRIENDS",
    "followers": "FOLLOWER_OF_CREATOR",
    "private": "SELF_ONLY",
}
POST_INFO_OPTIONS = (
    "disable_comment",
    "disable_duet",
    "disable_stitch",
    "video_cover_timestamp_ms",
    "brand_content_toggle",
    "brand_organic_toggle",
    "is_aigc",
)
#: TikTok's own privacy levels (creator_info's privacy_level_options hold a subset)
TIKTOK_PRIVACY_LEVELS = ("PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY")
#: the creator's interaction choices a publication carries (``options.tiktok``) -> post_info
INTERACTION_OPTIONS = {
    "disableComment": "disable_comment",
    "disableDuet": "disable_duet",
    "disableStitch": "disable_stitch",
}
#: errors that are the operator's app configuration, with what to do
APP_CONFIGURATION_HINTS = {
    "unaudited_client_can_only_post_to_private_accounts": (
        "TikTok has not audited this app: it may post only to private accounts, as SELF_ONLY, for at "
        "most 5 users a day. Make the TikTok account private, or have the app audited "
        "(https://developers.tiktok.com/doc/content-sharing-guidelines) and set TIKTOK_APP_AUDITED."
    ),
    "reached_active_user_cap": (
        "TikTok lets an app it has not audited post for at most 5 users in 24 hours: try again "
        "tomorrow, or have the app audited (https://developers.tiktok.com/doc/content-sharing-guidelines)."
    ),
    "url_ownership_unverified": (
        "TikTok pulls media only from a domain or URL prefix the app verified in the TikTok developer "
        "portal: verify the media host there and list it in TIKTOK_VERIFIED_URL_PREFIXES "
        "(https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide)."
    ),
}
#: post_info fields the Direct Post video reference has and the photo reference does not
VIDEO_ONLY_OPTIONS = frozenset({"disable_duet", "disable_stitch", "video_cover_timestamp_ms", "is_aigc"})


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def verified_url_prefixes() -> list[str]:
    """The operator's ``TIKTOK_VERIFIED_URL_PREFIXES``: the domains (``media.example.com``, its
    subdomains too) and URL prefixes (``https://media.example.com/posts/``) verified in the
    TikTok developer portal, from which TikTok accepts ``PULL_FROM_URL``."""
    from django.conf import settings

    raw = getattr(settings, "TIKTOK_VERIFIED_URL_PREFIXES", None) or []
    if isinstance(raw, str):
        raw = raw.split(",")
    return [str(p).strip() for p in raw if str(p).strip()]


def url_verified(url: str, prefixes: list[str]) -> bool:
    from urllib.parse import urlsplit

    if not url.startswith("https://"):
        return False
    host = (urlsplit(url).hostname or "").lower()
    for prefix in prefixes:
        if "://" in prefix:
            if url.startswith(prefix):
                return True
        else:
            domain = prefix.lower().strip("/")
            if host == domain or host.endswith("." + domain):
                return True
    return False


def made_with_ai(req: PostRequest) -> bool:
    """``is_aigc`` (TikTok's AI-generated content label), as YouTube's containsSyntheticMedia:
    what the client said (``containsSyntheticMedia``), else the content's AI flag (media or
    both), else how the video was made (``PostRequest.media_made_with_ai``)."""
    return req.media_made_with_ai


def chunk_plan(size: int, chunk_size: int) -> list[tuple[int, int]]:
    """(first, last) byte ranges: whole file under 5 MB, else equal chunks with the rest on the last."""
    if size < MIN_CHUNK:
        return [(0, size - 1)]
    chunk = max(MIN_CHUNK, min(chunk_size, MAX_CHUNK, size))
    count = max(size // chunk, 1)
    ranges = [(i * chunk, (i + 1) * chunk - 1) for i in range(count)]
    ranges[-1] = (ranges[-1][0], size - 1)
    return ranges


class TikTokClient(PlatformClient):
    platform = "tiktok"
    default_base_url = "https://open.tiktokapis.com"
    error_style = "tiktok"
    rate_limit_codes = frozenset({"rate_limit_exceeded"})
    token_expired_codes = frozenset({"access_token_invalid"})
    # Content Posting API error codes: a missing scope comes back as HTTP 401 too.
    scope_error_codes = frozenset({"scope_not_authorized", "scope_permission_missed"})
    transient_codes = frozenset({"internal_error"})
    chunk_size = 10 * MB
    #: how long ``publish`` waits for processing (and moderation) before it hands the post
    #: back as pending; the poller then reads status/fetch on its own slow schedule
    settle_timeout = 30.0
    #: status/fetch allows 30 calls a minute per user token: the settle reads stay at 2-10 s
    poll_delays = (2, 5, 10)

    def adjust_error(
        self, error: PlatformError, resp: requests.Response, extra: dict[str, Any]
    ) -> PlatformError:
        hint = APP_CONFIGURATION_HINTS.get(str(error.code))
        if hint:
            error.message = f"{error.message} ({error.code}: {hint})"
            error.retryable, error.retry_after = False, None
        return error

    def check_body(self, resp: requests.Response) -> None:
        if "application/json" not in resp.headers.get("Content-Type", ""):
            return
        body = json_body(resp)
        code = (body.get("error") or {}).get("code", "ok")
        if code != "ok":
            raise self.error_from_response(resp)

    def post_json(
        self, path: str, payload: dict[str, Any], *, create: bool = False, **kwargs: Any
    ) -> dict[str, Any]:
        return (
            self.get_json(
                "POST",
                path,
                json=payload,
                headers={"Content-Type": "application/json; charset=UTF-8"},
                create=create,
                **kwargs,
            ).get("data")
            or {}
        )

    def creator_info(self) -> dict[str, Any]:
        return self.post_json("/v2/post/publish/creator_info/query/", {})

    # ---- validation -----------------------------------------------------------------

    @staticmethod
    def chosen(req: PostRequest) -> dict[str, Any]:
        """The creator's choices the publication carries (``options.tiktok``)."""
        value = req.options.get("tiktok")
        return value if isinstance(value, dict) else {}

    def privacy_level(self, req: PostRequest) -> str:
        """The privacy level the creator chose (``options.tiktok.privacyLevel``); a request
        without one (the client used directly) names it with our neutral words."""
        level = self.chosen(req).get("privacyLevel")
        if level is not None:
            if level not in TIKTOK_PRIVACY_LEVELS:
                raise self.invalid(f"TikTok has no privacy level {level!r}.")
            return str(level)
        if req.privacy not in PRIVACY_LEVELS:
            raise self.invalid(f"TikTok has no privacy level {req.privacy!r}.")
        return PRIVACY_LEVELS[req.privacy]

    def check_pull_urls(self, urls: list[str]) -> None:
        """PULL_FROM_URL needs each URL under a verified domain or prefix: refused before init."""
        prefixes = verified_url_prefixes()
        for url in urls:
            if not url_verified(url, prefixes):
                listed = ", ".join(prefixes) or "none set"
                raise self.invalid(
                    f"TikTok would refuse to pull {url}: it is not under a verified domain or URL "
                    f"prefix (TIKTOK_VERIFIED_URL_PREFIXES: {listed}). "
                    + APP_CONFIGURATION_HINTS["url_ownership_unverified"],
                    "url_ownership_unverified",
                )

    def validate(self, req: PostRequest) -> None:
        self.privacy_level(req)
        if not req.media:
            raise self.invalid("A TikTok post needs a video or photos.")
        if req.videos:
            if len(req.media) != 1:
                raise self.invalid("A TikTok video post is exactly one video.")
            video = req.videos[0]
            if normalise_type(video.content_type) not in VIDEO_TYPES:
                raise self.invalid(
                    f"TikTok videos must be MP4, WebM or MOV, not {video.content_type}.",
                    "invalid_media_format",
                )
            if not video.readable or req.options.get("source") == "PULL_FROM_URL":
                check_https(video, self.platform)
                self.check_pull_urls([video.url])
            if utf16_len(req.caption) > 2200:
                raise self.invalid("TikTok captions are limited to 2,200 UTF-16 units.", "text_too_long")
        else:
            if len(req.images) > PHOTO_MAX:
                raise self.invalid(f"A TikTok photo post holds at most {PHOTO_MAX} photos.")
            for item in req.images:
                check_https(item, self.platform)
                if normalise_type(item.content_type) not in PHOTO_TYPES:
                    raise self.invalid(
                        f"TikTok photos must be JPEG or WebP, not {item.content_type}.",
                        "invalid_media_format",
                    )
            if utf16_len(req.title) > 90 or utf16_len(req.caption) > 4000:
                raise self.invalid(
                    "TikTok photo titles hold 90 and descriptions 4,000 UTF-16 units.", "text_too_long"
                )
            self.check_pull_urls([i.url for i in req.images])

    def _check_creator(self, req: PostRequest, creator: dict[str, Any]) -> str:
        privacy = self.privacy_level(req)
        options = creator.get("privacy_level_options") or []
        if privacy not in options:
            if options == ["SELF_ONLY"]:
                raise self.invalid(
                    "TikTok lets an app it has not audited post only privately (SELF_ONLY): choose "
                    "SELF_ONLY for this post, or have the app audited by TikTok.",
                    "privacy_level_option_mismatch",
                )
            raise self.invalid(
                f"This TikTok account can post only as {', '.join(options) or 'nothing'}, not {privacy}.",
                "privacy_level_option_mismatch",
            )
        max_seconds = creator.get("max_video_post_duration_sec")
        for video in req.videos:
            if max_seconds and video.seconds and video.seconds > max_seconds:
                raise self.invalid(
                    f"This TikTok account posts videos up to {max_seconds} s.", "invalid_media_duration"
                )
        return privacy

    # ---- publish --------------------------------------------------------------------

    def publish(self, req: PostRequest) -> PublishResult:
        self.validate(req)
        creator = self.creator_info()
        privacy = self._check_creator(req, creator)
        post_info: dict[str, Any] = {"privacy_level": privacy}
        for key in POST_INFO_OPTIONS:
            if key in req.options and (req.videos or key not in VIDEO_ONLY_OPTIONS):
                post_info[key] = req.options[key]
        chosen = self.chosen(req)
        for ours, theirs in INTERACTION_OPTIONS.items():
            if chosen.get(ours) is not None and (req.videos or theirs not in VIDEO_ONLY_OPTIONS):
                post_info[theirs] = bool(chosen[ours])
        if req.videos and "is_aigc" not in req.options:
            post_info["is_aigc"] = made_with_ai(req)
        if creator.get("comment_disabled"):
            post_info["disable_comment"] = True
        if req.videos:
            publish_id = self._init_video(req, post_info)
            kind = "video"
        else:
            post_info.update(title=req.title, description=req.caption)
            if "auto_add_music" in req.options:
                post_info["auto_add_music"] = req.options["auto_add_music"]
            data = self.post_json(
                "/v2/post/publish/content/init/",
                {
                    "post_info": post_info,
                    "source_info": {
                        "source": "PULL_FROM_URL",
                        "photo_cover_index": int(req.options.get("photo_cover_index", 0)),
                        "photo_images": [i.url for i in req.images],
                    },
                    "post_mode": "DIRECT_POST",
                    "media_type": "PHOTO",
                },
                create=True,
            )
            publish_id = data["publish_id"]
            kind = "photo"
        state = {
            "publish_id": publish_id,
            "kind": kind,
            "username": creator.get("creator_username", ""),
            "public": privacy != "SELF_ONLY",
            "privacy_level": privacy,
        }
        return self._settle(state)

    def _settle(self, state: dict[str, Any]) -> PublishResult:
        """Read ``status/fetch`` for up to ``settle_timeout`` and say where the post stands.

        TikTok's own figures: processing takes seconds to minutes, moderation of a public post
        usually a minute and sometimes hours, and the post id exists only after it. A post
        not finished by then is returned ``pending``: the caller asks ``check_pending`` later
        (a slow poll, well under status/fetch's 30 calls a minute per user) and never posts
        it again.
        """
        last: dict[str, Any] = {}

        def read() -> dict[str, Any]:
            last.clear()
            last.update(self._status(state["publish_id"]))
            return dict(last)

        try:
            status = self.poll(
                read,
                lambda d: self._final(state, d),
                what=f"publish {state['publish_id']}",
                timeout=min(self.poll_timeout, self.settle_timeout),
            )
        except PlatformError as exc:
            if exc.code == "media_processing_failed":
                raise
            # TikTok accepted the post; only its outcome is not known yet. Retrying would post twice.
            extra = {} if exc.code == "processing_timeout" else {"status_error": exc.message}
            return self._pending(state, {**(last or {"status": "PROCESSING"}), **extra})
        return self._result(state, status)

    def check_pending(self, state: dict[str, Any]) -> PublishResult:
        """One ``status/fetch`` read for a post ``publish`` left pending."""
        status = self._status(state["publish_id"])
        if not self._final(state, status):
            return self._pending(state, status)
        return self._result(state, status)

    def _status(self, publish_id: str) -> dict[str, Any]:
        data = self.post_json("/v2/post/publish/status/fetch/", {"publish_id": publish_id})
        if data.get("status") == "FAILED":
            raise self.processing_failed(data.get("fail_reason") or "publish failed", raw=data)
        return data

    @staticmethod
    def _post_ids(status: dict[str, Any]) -> list[str]:
        # TikTok's field name is spelled "publicaly" in the API reference.
        ids = status.get("publicaly_available_post_id") or status.get("publicly_available_post_id") or []
        return [str(i) for i in ids]

    def _final(self, state: dict[str, Any], status: dict[str, Any]) -> bool:
        """Done when the post is complete and, for a public post, has its id (after moderation)."""
        if status.get("status") == "SEND_TO_USER_INBOX":
            return True
        if status.get("status") != "PUBLISH_COMPLETE":
            return False
        return bool(self._post_ids(status)) or not state.get("public", True)

    def _pending(self, state: dict[str, Any], status: dict[str, Any]) -> PublishResult:
        state = {**state, "status": status.get("status") or state.get("status") or "PROCESSING"}
        return PublishResult(
            external_id="",
            url="",
            pending=True,
            state=state,
            raw={"publish_id": state["publish_id"], **status},
        )

    def _result(self, state: dict[str, Any], status: dict[str, Any]) -> PublishResult:
        publish_id = state["publish_id"]
        post_ids = self._post_ids(status)
        raw = {"publish_id": publish_id, "status": status.get("status")}
        if not post_ids:
            # A SELF_ONLY post (or a draft sent to the inbox) never gets a public post id:
            # the publish id is the only handle there is.
            return PublishResult(
                external_id=publish_id, url="", raw=raw, visibility=state.get("privacy_level", "")
            )
        username = state.get("username", "")
        url = (
            f"https://www.tiktok.com/@{username}/{state.get('kind', 'video')}/{post_ids[0]}"
            if username
            else ""
        )
        return PublishResult(
            external_id=post_ids[0], url=url, raw=raw, visibility=state.get("privacy_level", "")
        )

    def _init_video(self, req: PostRequest, post_info: dict[str, Any]) -> str:
        video = req.videos[0]
        post_info["title"] = req.caption
        if not video.readable or req.options.get("source") == "PULL_FROM_URL":
            data = self.post_json(
                "/v2/post/publish/video/init/",
                {"post_info": post_info, "source_info": {"source": "PULL_FROM_URL", "video_url": video.url}},
                create=True,
            )
            return data["publish_id"]
        size = video.byte_size()
        plan = chunk_plan(size, self.chunk_size)
        data = self.post_json(
            "/v2/post/publish/video/init/",
            {
                "post_info": post_info,
                "source_info": {
                    "source": "FILE_UPLOAD",
                    "video_size": size,
                    "chunk_size": plan[0][1] + 1,
                    "total_chunk_count": len(plan),
                },
            },
        )
        publish_id = data["publish_id"]
        with video.open() as fh:  # one chunk in memory at a time, read from the stored file
            for index, (first, last) in enumerate(plan):
                final = index == len(plan) - 1

                def put(first: int = first, last: int = last, final: bool = final) -> None:
                    # Completing the upload is what posts the video.
                    self.request(
                        "PUT",
                        data["upload_url"],
                        auth=False,
                        create=final,
                        data=read_chunk(fh, first, last),
                        headers={
                            "Content-Type": normalise_type(video.content_type),
                            "Content-Range": f"bytes {first}-{last}/{size}",
                        },
                    )

                try:
                    put()
                except OutcomeUnknown as lost:
                    # The last chunk's answer was lost. The publish id is ours already, so TikTok's
                    # status says whether the bytes arrived (no video.list needed): all of them, the
                    # post is on its way; fewer, the chunk never landed and is sent again, once.
                    try:
                        status = self._status(publish_id)
                    except PlatformError as exc:
                        if exc.code == "media_processing_failed":
                            raise
                        raise lost from exc
                    received = status.get("uploaded_bytes")
                    if (
                        status.get("status") == "PROCESSING_UPLOAD"
                        and received is not None
                        and int(received) < size
                    ):
                        put()
        return publish_id

    # ---- reads ----------------------------------------------------------------------

    def find_published(self, req: PostRequest) -> PublishResult | None:
        data = self.post_json(
            "/v2/video/list/",
            {"max_count": 20},
            params={"fields": "id,title,video_description,share_url,create_time"},
        )
        for video in data.get("videos") or []:
            text = video.get("video_description") or video.get("title")
            if self.same_text(text, req.caption):
                return PublishResult(external_id=str(video["id"]), url=video.get("share_url", ""), raw=video)
        return None

    def unfindable_reason(self, req: PostRequest) -> str:
        """video.list returns the creator's public videos only: a private, friends or
        followers post whose answer was lost cannot be found there."""
        if PRIVACY_LEVELS.get(req.privacy, req.privacy) == "PUBLIC_TO_EVERYONE":
            return ""
        return (
            f"TikTok lists only public videos, so this {req.privacy} post cannot be looked up; "
            f"check the TikTok app's profile and confirm it in the admin"
        )

    @staticmethod
    def is_publish_id(external_id: str) -> bool:
        """A publish id (``v_pub_file~…``, ``v_pub_url~…``, ``p_pub_url~…``), not a video id."""
        return bool(re.match(r"^[a-z]_pub_", external_id or ""))

    def resolve_post_id(self, publish_id: str) -> str | None:
        """The public video id TikTok gave the post published under ``publish_id`` (metrics
        are read by video id), or None while it has none (private, or still in moderation)."""
        ids = self._post_ids(self._status(publish_id))
        return str(ids[0]) if ids else None

    def fetch_metrics(self, external_id: str) -> Metrics:
        data = self.post_json(
            "/v2/video/query/",
            {"filters": {"video_ids": [external_id]}},
            params={"fields": "id,view_count,like_count,comment_count,share_count"},
        )
        videos = data.get("videos") or []
        if not videos:
            raise PlatformError(f"TikTok has no video {external_id}", status_code=404, code="not_found")
        v = videos[0]
        return Metrics(
            views=int(v.get("view_count") or 0),
            likes=int(v.get("like_count") or 0),
            comments=int(v.get("comment_count") or 0),
            shares=int(v.get("share_count") or 0),
        )

    def fetch_account(self) -> AccountInfo:
        body = self.get_json(
            "GET",
            "/v2/user/info/",
            params={"fields": "open_id,union_id,avatar_url,display_name,username,follower_count"},
        )
        user = (body.get("data") or {}).get("user") or {}
        return AccountInfo(
            external_id=user.get("open_id", ""),
            username=user.get("username", ""),
            display_name=user.get("display_name", ""),
            picture_url=user.get("avatar_url", ""),
            followers=int(user.get("follower_count") or 0),
        )

    def publish_quota(self) -> Quota | None:
        """TikTok publishes no count, only whether the creator may post now.

        ``creator_info`` refuses with ``spam_risk_too_many_posts`` once the daily cap is
        reached, so the quota reads 0/1 (may post) or 1/1 (cap reached).
        """
        try:
            self.creator_info()
        except PlatformError as exc:
            if exc.code in {
                "spam_risk_too_many_posts",
                "spam_risk_user_banned_from_posting",
                "reached_active_user_cap",
            }:
                return Quota(used=1, limit=1)
            raise
        return Quota(used=0, limit=1)
