"""A fake AT Protocol PDS (and PLC directory) on 127.0.0.1 speaking XRPC, for the real Bluesky client.

It checks what a PDS checks, after the lexicons of bluesky-social/atproto
(lexicons/com/atproto/server/createSession.json, refreshSession.json, repo/uploadBlob.json,
repo/createRecord.json, app/bsky/feed/post.json, app/bsky/richtext/facet.json,
app/bsky/embed/images.json, app/bsky/embed/external.json):

- sessions: createSession takes the handle or DID and a live app password; the access JWT
  expires (``ExpiredToken``, HTTP 400) after ``access_ttl`` s, the refresh JWT after
  ``refresh_ttl`` s; refreshSession rotates both; a revoked app password is
  ``AuthenticationRequired`` (401).
- uploadBlob: a Content-Type and at most ``blob_limit`` bytes (``BlobTooLarge``).
- createRecord of an ``app.bsky.feed.post``: the repo is the session's DID, the record key a
  TID, ``text`` at most 300 graphemes and 3000 bytes, ``createdAt`` a datetime, every facet's
  byte range inside the text's UTF-8 bytes, on character boundaries, and covering what its
  feature says (a link's URI, ``@handle`` of the mentioned DID, ``#tag``); embeds: 1-4 images
  each with ``alt`` and an uploaded image blob, or an external card (uri, title, description,
  an optional uploaded thumb under 1,000,000 bytes). A record key already used is refused.
- the video service (app/bsky/video/uploadVideo.json, getJobStatus.json, defs.json,
  com/atproto/server/getServiceAuth.json, app/bsky/embed/video.json): getServiceAuth signs a
  token bound to an audience and a method (``lxm``), at most an hour long; uploadVideo takes
  such a token for the PDS's ``com.atproto.repo.uploadBlob`` (audience the PDS's did:web) from
  the same DID as ``?did=``, a ``name``, ``video/mp4`` bytes under ``video_limit``; the same
  video twice answers 409 ``already_exists`` with its job; getJobStatus runs the job through
  ``video_polls`` reads of JOB_STATE_ENCODING to JOB_STATE_COMPLETED with the blob stored on the
  PDS (or JOB_STATE_FAILED); a post's ``app.bsky.embed.video`` needs such a video/mp4 blob.
- reads: getRecord, getPostThread (counts set by the test), app.bsky.actor.getProfile,
  resolveHandle, the PLC directory's DID documents; deleteRecord.
- behind the name example.com (a test's faked resolver points it here) it serves pages with
  OpenGraph tags (link cards).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt

from apps.platforms.text import graphemes

SECRET = "fake-pds-signing-key-of-at-least-32-bytes"
TID = re.compile(r"^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$")
DID = re.compile(r"^did:[a-z]+:[a-zA-Z0-9._:%-]+$")


@dataclass
class Account:
    did: str
    handle: str
    display_name: str = ""
    followers: int = 0
    app_passwords: set[str] = field(default_factory=set)


class FakePDS:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.clock = time.time
        self.access_ttl = 7200
        self.refresh_ttl = 90 * 86400
        self.blob_limit = 2_000_000
        self.accounts: dict[str, Account] = {}
        self.blobs: dict[str, dict[str, Any]] = {}
        self.records: dict[tuple[str, str], dict[str, Any]] = {}
        self.counts: dict[str, dict[str, int]] = {}
        self.pages: dict[str, tuple[str, bytes]] = {}
        self.requests: list[tuple[str, str]] = []
        self.refused: list[str] = []
        self.revoked_refresh: set[str] = set()
        self.video_limit = 100_000_000
        self.video_polls = 2
        self.video_failure = ""
        self.jobs: dict[str, dict[str, Any]] = {}
        #: what app.bsky.video.getUploadLimits answers, and how often it was read
        self.upload_limits: dict[str, Any] = {
            "canUpload": True,
            "remainingDailyVideos": 25,
            "remainingDailyBytes": 10_000_000_000,
        }
        self.limit_reads = 0
        self._n = 0
        #: a DID document's #atproto_pds endpoint other than this fake (what its owner registered)
        self.endpoints: dict[str, str] = {}
        #: answers createSession with this redirect (status, Location) when set
        self.session_redirect: tuple[int, str] | None = None
        #: page paths (behind example.com) that answer 302 to another URL
        self.redirects: dict[str, str] = {}
        self._server = ThreadingHTTPServer((host, 0), _Handler)
        self._server.fake = self  # type: ignore[attr-defined]
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add_account(self, handle: str, app_password: str, **kw: Any) -> Account:
        did = "did:plc:" + hashlib.sha256(handle.encode()).hexdigest()[:24]
        account = Account(did=did, handle=handle, app_passwords={app_password}, **kw)
        self.accounts[did] = account
        return account

    # ---- sessions ------------------------------------------------------------------------

    def _jwt(self, did: str, scope: str, ttl: float) -> str:
        self._n += 1
        now = self.clock()
        return jwt.encode(
            {"scope": scope, "sub": did, "iat": int(now), "exp": int(now + ttl), "jti": str(self._n)},
            SECRET,
            algorithm="HS256",
        )

    def session(self, did: str) -> dict[str, Any]:
        account = self.accounts[did]
        return {
            "did": did,
            "handle": account.handle,
            "accessJwt": self._jwt(did, "com.atproto.appPass", self.access_ttl),
            "refreshJwt": self._jwt(did, "com.atproto.refresh", self.refresh_ttl),
            "active": True,
        }

    def bearer(self, headers: dict[str, str], scope: str) -> tuple[str | None, tuple[int, dict] | None]:
        token = headers.get("authorization", "").removeprefix("Bearer ").strip()
        try:
            claims = jwt.decode(
                token,
                SECRET,
                algorithms=["HS256"],
                options={"verify_exp": False, "verify_iat": False, "verify_nbf": False},
            )
        except jwt.PyJWTError:
            return None, (400, {"error": "InvalidToken", "message": "Malformed token"})
        if claims.get("scope") != scope or token in self.revoked_refresh:
            return None, (400, {"error": "InvalidToken", "message": "Bad token scope"})
        if claims["exp"] <= self.clock():
            return None, (400, {"error": "ExpiredToken", "message": "Token has expired"})
        return str(claims["sub"]), None

    # ---- record checks (the lexicons) -------------------------------------------------------

    def check_post(self, did: str, rkey: str, record: dict[str, Any]) -> str | None:  # noqa: PLR0911
        if not TID.match(rkey):
            return f"Invalid record key: {rkey}"
        if (did, rkey) in self.records:
            return f"Record already exists: {rkey}"
        if record.get("$type") != "app.bsky.feed.post":
            return "Invalid $type"
        text = record.get("text")
        if not isinstance(text, str):
            return "Record/text must be a string"
        data = text.encode("utf-8")
        if len(data) > 3000 or len(graphemes(text)) > 300:
            return "Record/text must not be longer than 300 graphemes"
        try:
            datetime.fromisoformat(str(record.get("createdAt")).replace("Z", "+00:00"))
        except ValueError:
            return "Record/createdAt must be an valid atproto datetime"
        for facet in record.get("facets") or []:
            problem = self.check_facet(data, facet)
            if problem:
                return problem
        embed = record.get("embed")
        if embed is not None:
            return self.check_embed(embed)
        return None

    def check_facet(self, data: bytes, facet: dict[str, Any]) -> str | None:
        index = facet.get("index") or {}
        start, end = index.get("byteStart"), index.get("byteEnd")
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(data)):
            return f"Facet byte range {start}-{end} is outside the text ({len(data)} bytes)"
        try:
            covered = data[start:end].decode("utf-8")
        except UnicodeDecodeError:
            return f"Facet byte range {start}-{end} splits a character"
        features = facet.get("features") or []
        if len(features) != 1:
            return "Facet must have one feature here"
        feature = features[0]
        kind = feature.get("$type")
        if kind == "app.bsky.richtext.facet#link":
            ok = covered == feature.get("uri")
        elif kind == "app.bsky.richtext.facet#mention":
            account = self.accounts.get(str(feature.get("did")))
            ok = (
                bool(DID.match(str(feature.get("did"))))
                and account is not None
                and covered == "@" + account.handle
            )
        elif kind == "app.bsky.richtext.facet#tag":
            tag = str(feature.get("tag") or "")
            ok = covered == "#" + tag and len(tag.encode()) <= 640 and len(graphemes(tag)) <= 64
        else:
            return f"Unknown facet feature {kind}"
        return None if ok else f"Facet {start}-{end} covers {covered!r}, not what its {kind} says"

    def check_blob(self, blob: Any, limit: int, accept: str = "image/") -> str | None:
        if not isinstance(blob, dict) or blob.get("$type") != "blob":
            return "Expected a blob"
        stored = self.blobs.get(str((blob.get("ref") or {}).get("$link")))
        if stored is None:
            return "Blob not found (not uploaded)"
        if not str(stored["mimeType"]).startswith(accept) or stored["size"] > limit:
            return f"Blob is {stored['mimeType']}, {stored['size']} bytes (limit {limit})"
        return None

    def check_embed(self, embed: dict[str, Any]) -> str | None:
        kind = embed.get("$type")
        if kind == "app.bsky.embed.images":
            images = embed.get("images") or []
            if not 1 <= len(images) <= 4:
                return "Embed/images must have 1 to 4 items"
            for item in images:
                if not isinstance(item.get("alt"), str):
                    return "Embed/images/alt is required"
                problem = self.check_blob(item.get("image"), self.blob_limit)
                if problem:
                    return problem
            return None
        if kind == "app.bsky.embed.external":
            ext = embed.get("external") or {}
            if not all(isinstance(ext.get(k), str) for k in ("uri", "title", "description")):
                return "Embed/external needs uri, title and description"
            return self.check_blob(ext["thumb"], 1_000_000) if "thumb" in ext else None
        if kind == "app.bsky.embed.video":
            return self.check_video_embed(embed)
        return f"Unknown embed {kind}"

    def check_video_embed(self, embed: dict[str, Any]) -> str | None:
        alt = embed.get("alt", "")
        if not isinstance(alt, str) or len(graphemes(alt)) > 1000:
            return "Embed/video/alt must be a string of at most 1000 graphemes"
        ratio = embed.get("aspectRatio")
        if ratio is not None and not all(
            isinstance(ratio.get(k), int) and ratio[k] >= 1 for k in ("width", "height")
        ):
            return "Embed/video/aspectRatio needs positive integer width and height"
        return self.check_blob(embed.get("video"), 100_000_000, accept="video/mp4")

    # ---- the video service -------------------------------------------------------------------

    def service_auth(self, did: str, query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        try:
            exp = int(query.get("exp") or self.clock() + 60)
        except ValueError:
            return 400, {"error": "InvalidRequest", "message": "exp must be an integer"}
        if not query.get("aud", "").startswith("did:") or exp <= self.clock() or exp > self.clock() + 3600:
            return 400, {"error": "BadExpiration", "message": "aud must be a DID, exp within the hour"}
        claims = {
            "iss": did,
            "aud": query["aud"],
            "lxm": query.get("lxm"),
            "exp": exp,
            "iat": int(self.clock()),
        }
        return 200, {"token": jwt.encode(claims, SECRET, algorithm="HS256")}

    def video_upload_limits(self, headers: dict[str, str]) -> tuple[int, dict]:
        """app/bsky/video/getUploadLimits.json: a service token for this very method and service."""
        token = headers.get("authorization", "").removeprefix("Bearer ").strip()
        try:
            claims = jwt.decode(token, SECRET, algorithms=["HS256"], options={"verify_aud": False})
        except jwt.PyJWTError as exc:
            return 401, {"error": "AuthMissing", "message": f"Bad service token: {exc}"}
        service_did = f"did:web:{urlsplit(self.url).hostname}"
        if claims.get("aud") != service_did or claims.get("lxm") != "app.bsky.video.getUploadLimits":
            return 401, {"error": "AuthMissing", "message": "The token must be for getUploadLimits"}
        self.limit_reads += 1
        return 200, dict(self.upload_limits)

    def upload_video(self, query: dict[str, str], headers: dict[str, str], body: bytes) -> tuple[int, dict]:
        token = headers.get("authorization", "").removeprefix("Bearer ").strip()
        try:
            claims = jwt.decode(token, SECRET, algorithms=["HS256"], options={"verify_aud": False})
        except jwt.PyJWTError as exc:
            return 401, {"error": "AuthMissing", "message": f"Bad service token: {exc}"}
        pds_did = f"did:web:{urlsplit(self.url).hostname}"
        if claims.get("aud") != pds_did or claims.get("lxm") != "com.atproto.repo.uploadBlob":
            return 401, {"error": "AuthMissing", "message": "The token must be for the PDS's uploadBlob"}
        if claims.get("iss") != query.get("did") or not query.get("name"):
            return 400, {
                "error": "InvalidRequest",
                "message": "did must be the token's issuer; name is required",
            }
        if headers.get("content-type") != "video/mp4" or not body:
            return 400, {"error": "InvalidRequest", "message": "Send the video/mp4 bytes"}
        if len(body) > self.video_limit:
            return 400, {"error": "InvalidRequest", "message": f"{len(body)} bytes > {self.video_limit}"}
        cid = "bafkrei" + hashlib.sha256(body).hexdigest()[:52]
        for job_id, job in self.jobs.items():
            if job["cid"] == cid and job["did"] == claims["iss"]:
                return 409, {"error": "already_exists", "message": "Video already processed", "jobId": job_id}
        job_id = f"job-{len(self.jobs) + 1}"
        self.jobs[job_id] = {
            "did": claims["iss"],
            "cid": cid,
            "size": len(body),
            "polls_left": self.video_polls,
            "failure": self.video_failure,
        }
        return 200, {"jobStatus": {"jobId": job_id, "did": claims["iss"], "state": "JOB_STATE_CREATED"}}

    def job_status(self, query: dict[str, str]) -> tuple[int, dict]:
        job = self.jobs.get(query.get("jobId", ""))
        if job is None:
            return 400, {"error": "InvalidRequest", "message": "Job not found"}
        status: dict[str, Any] = {"jobId": query["jobId"], "did": job["did"]}
        if job["polls_left"] > 0:
            job["polls_left"] -= 1
            return 200, {"jobStatus": {**status, "state": "JOB_STATE_ENCODING", "progress": 50}}
        if job["failure"]:
            state = {"state": "JOB_STATE_FAILED", "error": job["failure"], "failureCode": "encoding_failure"}
            return 200, {"jobStatus": {**status, **state}}
        self.blobs[job["cid"]] = {"mimeType": "video/mp4", "size": job["size"]}  # now on the PDS
        blob = {"$type": "blob", "ref": {"$link": job["cid"]}, "mimeType": "video/mp4", "size": job["size"]}
        return 200, {"jobStatus": {**status, "state": "JOB_STATE_COMPLETED", "progress": 100, "blob": blob}}

    # ---- the wire ----------------------------------------------------------------------------

    def handle(
        self, method: str, raw_path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, Any, str]:
        parts = urlsplit(raw_path)
        named = (headers.get("host") or "").rsplit(":", 1)[0]
        if "example.com" in (parts.hostname, named):  # a page with OpenGraph tags (behind a name)
            if parts.path in self.redirects:
                return 302, b"", "text/plain"
            ctype, content = self.pages.get(parts.path, ("text/plain", b""))
            return (200 if content else 404), content, ctype
        path, query = parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.requests.append((method, path))
        if path.startswith("/plc/"):
            did = path.removeprefix("/plc/")
            if did not in self.accounts:
                return 404, {"message": "DID not registered"}, "application/json"
            return (
                200,
                {
                    "@context": ["https://www.w3.org/ns/did/v1"],
                    "id": did,
                    "alsoKnownAs": [f"at://{self.accounts[did].handle}"],
                    "service": [
                        {
                            "id": "#atproto_pds",
                            "type": "AtprotoPersonalDataServer",
                            "serviceEndpoint": self.endpoints.get(did, self.url),
                        }
                    ],
                },
                "application/json",
            )
        nsid = path.removeprefix("/xrpc/")
        payload = (
            json.loads(body)
            if body and headers.get("content-type", "").startswith("application/json")
            else {}
        )
        status, answer = self.xrpc(method, nsid, query, payload, headers, body)
        if status >= 400:
            self.refused.append(f"{nsid}: {answer.get('message')}")
        return status, answer, "application/json"

    def xrpc(self, method, nsid, query, payload, headers, body) -> tuple[int, dict[str, Any]]:  # noqa: C901, PLR0911, PLR0912
        if nsid == "com.atproto.identity.resolveHandle":
            for account in self.accounts.values():
                if account.handle == query.get("handle"):
                    return 200, {"did": account.did}
            return 400, {"error": "InvalidRequest", "message": "Unable to resolve handle"}
        if nsid == "com.atproto.server.createSession":
            if self.session_redirect:  # a PDS sending the client elsewhere
                return self.session_redirect[0], {}
            ident = str(payload.get("identifier") or "")
            account = self.accounts.get(ident) or next(
                (a for a in self.accounts.values() if a.handle == ident), None
            )
            if account is None or payload.get("password") not in account.app_passwords:
                return 401, {"error": "AuthenticationRequired", "message": "Invalid identifier or password"}
            return 200, self.session(account.did)
        if nsid == "com.atproto.server.refreshSession":
            did, refused = self.bearer(headers, "com.atproto.refresh")
            if refused:
                return refused
            self.revoked_refresh.add(headers["authorization"].removeprefix("Bearer ").strip())
            return 200, self.session(str(did))
        if nsid == "app.bsky.video.getUploadLimits":
            return self.video_upload_limits(headers)
        if nsid == "app.bsky.video.uploadVideo":
            return self.upload_video(query, headers, body)
        if nsid == "app.bsky.video.getJobStatus":
            return self.job_status(query)
        did, refused = self.bearer(headers, "com.atproto.appPass")
        if refused:
            return refused
        if nsid == "com.atproto.server.getServiceAuth":
            return self.service_auth(str(did), query)
        if nsid == "com.atproto.repo.uploadBlob":
            ctype = headers.get("content-type", "")
            if not ctype or ctype == "application/json":
                return 400, {"error": "InvalidRequest", "message": "A Content-Type is required"}
            if len(body) > self.blob_limit:
                return 400, {"error": "BlobTooLarge", "message": f"{len(body)} bytes > {self.blob_limit}"}
            cid = "bafkrei" + hashlib.sha256(body).hexdigest()[:52]
            self.blobs[cid] = {"mimeType": ctype, "size": len(body)}
            return 200, {
                "blob": {"$type": "blob", "ref": {"$link": cid}, "mimeType": ctype, "size": len(body)}
            }
        if nsid == "com.atproto.repo.createRecord":
            if payload.get("repo") != did or payload.get("collection") != "app.bsky.feed.post":
                return 400, {"error": "InvalidRequest", "message": "repo must be the session's DID"}
            rkey, record = str(payload.get("rkey") or ""), payload.get("record") or {}
            problem = self.check_post(str(did), rkey, record)
            if problem:
                return 400, {"error": "InvalidRequest", "message": problem}
            uri = f"at://{did}/app.bsky.feed.post/{rkey}"
            self.records[(str(did), rkey)] = {"uri": uri, "cid": "bafyrei" + rkey, "value": record}
            return 200, {"uri": uri, "cid": "bafyrei" + rkey}
        if nsid == "com.atproto.repo.getRecord":
            found = self.records.get((query.get("repo", ""), query.get("rkey", "")))
            return (
                (200, found)
                if found
                else (400, {"error": "RecordNotFound", "message": "Could not locate record"})
            )
        if nsid == "com.atproto.repo.deleteRecord":
            self.records.pop((str(payload.get("repo")), str(payload.get("rkey"))), None)
            return 200, {}
        if nsid == "app.bsky.feed.getPostThread":
            uri = query.get("uri", "")
            found = next((r for r in self.records.values() if r["uri"] == uri), None)
            if found is None:
                return 400, {"error": "NotFound", "message": f"Post not found: {uri}"}
            counts = self.counts.get(uri, {})
            post = {
                "uri": uri,
                "cid": found["cid"],
                "record": found["value"],
                **{k: counts.get(k, 0) for k in ("likeCount", "repostCount", "replyCount", "quoteCount")},
            }
            return 200, {"thread": {"$type": "app.bsky.feed.defs#threadViewPost", "post": post}}
        if nsid == "app.bsky.actor.getProfile":
            account = self.accounts.get(query.get("actor", ""))
            if account is None:
                return 400, {"error": "InvalidRequest", "message": "Profile not found"}
            return 200, {
                "did": account.did,
                "handle": account.handle,
                "displayName": account.display_name,
                "followersCount": account.followers,
            }
        return 501, {"error": "MethodNotImplemented", "message": nsid}


class _Handler(BaseHTTPRequestHandler):
    def _serve(self) -> None:
        fake: FakePDS = self.server.fake  # type: ignore[attr-defined]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, answer, ctype = fake.handle(self.command, self.path, headers, body)
        data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
        self.send_response(status)
        if 300 <= status < 400:
            location = fake.redirects.get(urlsplit(self.path).path) or (fake.session_redirect or (0, ""))[1]
            self.send_header("Location", location)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _serve

    def log_message(self, *args: Any) -> None:
        pass
