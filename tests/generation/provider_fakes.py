"""Local HTTP servers that speak the providers' documented wire formats.

Each fake runs a ``ThreadingHTTPServer`` on 127.0.0.1 (port 0) in a daemon thread, records
every request (method, path, headers, raw body, parsed JSON or multipart form) so tests can
assert the wire format, produces real media (PNG via Pillow, H.264 MP4 via PyAV) and can be
told to fail the next matching requests with a given HTTP status.

- ``OpenAIFake``: ``/v1/chat/completions``, ``/v1/images/generations``, ``/v1/images/edits``
  (multipart), ``/v1/videos`` (multipart create, retrieve, ``/content``); errors as
  ``{"error": {"message", "type", "code", "param"}}``.
- ``GeminiFake``: ``/v1beta/models/{model}:generateContent`` (candidates/content/parts with
  ``inlineData`` PNG), ``:predictLongRunning`` + ``/v1beta/{operation}`` polling for Veo and
  ``/v1beta/files/{id}:download``; errors as ``{"error": {"code", "message", "status"}}``.
- ``ReplicateFake``: ``/v1/predictions`` and ``/v1/models/{owner}/{name}/predictions``
  create, ``/v1/predictions/{id}`` get (starting -> processing -> succeeded), output files
  served by the fake, and signed webhook POSTs (``webhook-id``/``-timestamp``/``-signature``).
- ``WebhookReceiver``: records the webhook POSTs a fake delivers.
"""

from __future__ import annotations

import array
import base64
import contextlib
import hashlib
import hmac
import io
import json
import math
import re
import threading
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from PIL import Image, ImageDraw

# ---------------------------------------------------------------------------------------
# Media
# ---------------------------------------------------------------------------------------


def make_png(width: int, height: int, color: tuple[int, int, int] = (30, 102, 245)) -> bytes:
    """A real PNG: a colour field with a diagonal band and a circle (not uniform)."""
    img = Image.new("RGB", (width, height), color)
    draw = ImageDraw.Draw(img)
    draw.polygon([(0, height), (width // 2, 0), (width, 0), (width // 2, height)], fill=(245, 169, 127))
    r = max(2, min(width, height) // 5)
    draw.ellipse([width // 2 - r, height // 2 - r, width // 2 + r, height // 2 + r], fill=(255, 255, 255))
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def make_mp4(width: int, height: int, seconds: float = 1.0, fps: int = 12, audio: bool = False) -> bytes:
    """A real H.264 MP4 (optionally with an AAC sine track) encoded with PyAV."""
    import av

    width -= width % 2
    height -= height % 2
    buf = io.BytesIO()
    container = av.open(buf, mode="w", format="mp4")
    video = container.add_stream("libx264", rate=fps)
    video.width, video.height, video.pix_fmt = width, height, "yuv420p"
    video.options = {"preset": "ultrafast"}
    astream = None
    if audio:
        astream = container.add_stream("aac", rate=48000, layout="mono")
    frames = max(1, round(seconds * fps))
    for i in range(frames):
        img = Image.new("RGB", (width, height), (20 + (200 * i) // frames, 80, 160))
        ImageDraw.Draw(img).rectangle(
            [i * width // frames, 0, i * width // frames + width // 4, height], fill=(250, 250, 250)
        )
        frame = av.VideoFrame.from_image(img)
        frame.pts = i
        frame.time_base = Fraction(1, fps)
        for packet in video.encode(frame):
            container.mux(packet)
    for packet in video.encode(None):
        container.mux(packet)
    if astream is not None:
        total = int(48000 * seconds)
        pts = 0
        while pts < total:
            n = min(1024, total - pts)
            frame = av.AudioFrame(format="fltp", layout="mono", samples=n)
            samples = array.array(
                "f", (0.2 * math.sin(2 * math.pi * 440 * (pts + i) / 48000) for i in range(n))
            )
            raw = samples.tobytes()
            plane = frame.planes[0]
            plane.update(raw + b"\0" * (plane.buffer_size - len(raw)))
            frame.sample_rate = 48000
            frame.pts = pts
            frame.time_base = Fraction(1, 48000)
            pts += n
            for packet in astream.encode(frame):
                container.mux(packet)
        for packet in astream.encode(None):
            container.mux(packet)
    container.close()
    return buf.getvalue()


def b64decode_any(data: str) -> bytes:
    """Decode base64 as Google's JSON mapping accepts it: standard or URL-safe, padded or not."""
    data = data.strip().replace("-", "+").replace("_", "/")
    return base64.b64decode(data + "=" * (-len(data) % 4))


def small_dims(width: int, height: int, longest: int = 96) -> tuple[int, int]:
    """Same aspect ratio, scaled so the longer side is ``longest`` (even numbers)."""
    scale = longest / max(width, height)
    w = max(2, round(width * scale))
    h = max(2, round(height * scale))
    return w - w % 2, h - h % 2


# ---------------------------------------------------------------------------------------
# Server scaffolding
# ---------------------------------------------------------------------------------------


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    json: Any = None
    form: dict[str, str] = field(default_factory=dict)
    files: dict[str, tuple[str, str, bytes]] = field(default_factory=dict)  # name -> (filename, type, data)


@dataclass
class Failure:
    status: int
    message: str
    path_contains: str
    times: int
    code: str | None = None


def parse_multipart(
    content_type: str, body: bytes
) -> tuple[dict[str, str], dict[str, tuple[str, str, bytes]]]:
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\nMIME-Version: 1.0\r\n\r\n" + body
    )
    form: dict[str, str] = {}
    files: dict[str, tuple[str, str, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        filename = part.get_param("filename", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        if filename is not None:
            files[name] = (filename, part.get_content_type(), payload)
        else:
            form[name] = payload.decode("utf-8")
    return form, files


class FakeServer:
    """Base: threaded HTTP server, request log, scripted failures."""

    def __init__(self):
        self.requests: list[Recorded] = []
        self.delay = 0.0  # seconds to wait before answering (to provoke client timeouts)
        self._failures: list[Failure] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output quiet
                pass

            def handle(self):
                # the client gave up (timeout tests)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    super().handle()

            def _handle(self):
                split = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                rec = Recorded(
                    method=self.command,
                    path=split.path,
                    query=parse_qs(split.query),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
                ctype = self.headers.get("Content-Type", "")
                if ctype.startswith("application/json") and body:
                    rec.json = json.loads(body)
                elif ctype.startswith("multipart/form-data"):
                    rec.form, rec.files = parse_multipart(ctype, body)
                with fake._lock:
                    fake.requests.append(rec)
                if fake.delay:
                    time.sleep(fake.delay)
                failure = fake._take_failure(rec.path)
                if failure is not None:
                    status, payload, headers = fake.error_response(failure)
                else:
                    try:
                        status, payload, headers = fake.route(rec)
                    except Exception as exc:  # noqa: BLE001 - a fake bug must show up as a 500
                        status, payload, headers = (
                            500,
                            json.dumps({"error": {"message": repr(exc)}}).encode(),
                            {"Content-Type": "application/json"},
                        )
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_DELETE = _handle

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def fail(
        self, status: int, message: str, *, path_contains: str = "", times: int = 1, code: str | None = None
    ):
        """Answer the next ``times`` requests whose path contains ``path_contains`` with an error."""
        with self._lock:
            self._failures.append(Failure(status, message, path_contains, times, code))

    def _take_failure(self, path: str) -> Failure | None:
        with self._lock:
            for failure in self._failures:
                if failure.path_contains in path and failure.times > 0:
                    failure.times -= 1
                    if failure.times == 0:
                        self._failures.remove(failure)
                    return failure
        return None

    def requests_to(self, fragment: str, method: str | None = None) -> list[Recorded]:
        return [r for r in self.requests if fragment in r.path and (method is None or r.method == method)]

    # subclasses implement
    def route(self, rec: Recorded) -> tuple[int, bytes, dict[str, str]]:  # pragma: no cover
        raise NotImplementedError

    def error_response(self, failure: Failure) -> tuple[int, bytes, dict[str, str]]:  # pragma: no cover
        raise NotImplementedError


def _json(status: int, data: Any, extra: dict[str, str] | None = None) -> tuple[int, bytes, dict[str, str]]:
    return status, json.dumps(data).encode(), {"Content-Type": "application/json", **(extra or {})}


def default_post_json(topic: str = "our product") -> dict[str, Any]:
    return {
        "caption": f"Fresh ideas about {topic} ☕ Come say hi this weekend!",
        "hashtags": ["#coffee", "#Coffee", "#roastery", "#espresso"],
        "firstComment": "Which roast should we feature next?",
        "altText": "A steaming cup of coffee on a wooden table",
        "title": "Weekend roast",
        "sounds": ["lofi-morning-01"],
    }


_OPENERS = {
    "instagram": "Big news from us.",
    "facebook": "Some news we have been waiting to share.",
    "tiktok": "Wait for it.",
    "youtube": "In this video:",
    "linkedin": "An update from our team.",
    "x": "",
    "threads": "",
    "bluesky": "",
    "pinterest": "Ideas to save:",
    "mastodon": "",
}
_URL_RE = re.compile(r"https?://\S+|\b[\w-]+(?:\.[\w-]+)+/\S*")


def requested_platforms(prompt_text: str, schema: dict | None = None) -> list[str]:
    """The platforms a text request asks for: the JSON schema's keys, else the prompt's list."""
    if isinstance(schema, dict) and isinstance(schema.get("required"), list):
        keys = [k for k in schema["required"] if isinstance(k, str)]
        if keys and "caption" not in keys:
            return keys
    m = re.search(r"Its keys are exactly the platforms ([^.]+)\.", prompt_text)
    return re.findall(r'"(\w+)"', m.group(1)) if m else []


def brief_of(prompt_text: str) -> str:
    m = re.search(r'"""\n(.*?)\n"""', prompt_text, re.DOTALL)
    return m.group(1).strip() if m else ""


def default_posts_json(platforms: list[str], brief: str) -> dict[str, Any]:
    """What a well-behaved model answers: each platform its own opener around the brief's own
    words (no URL where links are not clickable), no hashtags it could get wrong."""
    posts: dict[str, Any] = {}
    for platform in platforms:
        text = brief
        if platform in ("instagram", "tiktok", "pinterest"):
            text = re.sub(r"\s*:?\s*" + _URL_RE.pattern, "", text).strip()
            if platform != "pinterest":
                text += " Link in bio."
        opener = _OPENERS.get(platform, "")
        posts[platform] = {
            "caption": f"{opener} {text}".strip() if opener else text,
            "hashtags": [],
            "firstComment": "",
            "altText": "The product on a table" if platform not in ("tiktok", "youtube") else "",
            "title": "Our news" if platform in ("youtube", "pinterest") else "",
            "sounds": [],
        }
    return posts


def default_reply(prompt_text: str, schema: dict | None, topic_fallback: str) -> str:
    platforms = requested_platforms(prompt_text, schema)
    if platforms:
        return json.dumps(default_posts_json(platforms, brief_of(prompt_text)))
    return json.dumps(default_post_json(topic_fallback))


# ---------------------------------------------------------------------------------------
# OpenAI
# ---------------------------------------------------------------------------------------


class OpenAIFake(FakeServer):
    """OpenAI REST API subset. Scripted chat replies via ``chat_replies`` (FIFO)."""

    def __init__(self):
        self.chat_replies: list[str] = []
        self.chat_refusal: str | None = None
        self.videos: dict[str, dict[str, Any]] = {}
        self.video_polls_until_done = 2
        self.video_failure: tuple[str, str] | None = None  # (code, message)
        self.files: dict[str, tuple[bytes, str]] = {}
        self.image_response_as_url = False
        super().__init__()

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def error_response(self, failure: Failure):
        kind = {
            400: "invalid_request_error",
            401: "invalid_request_error",
            403: "invalid_request_error",
            429: "rate_limit_exceeded" if failure.code != "insufficient_quota" else "insufficient_quota",
        }.get(failure.status, "server_error")
        return _json(
            failure.status,
            {"error": {"message": failure.message, "type": kind, "code": failure.code, "param": None}},
            {"x-request-id": "req_" + uuid.uuid4().hex[:12]},
        )

    def route(self, rec: Recorded):
        m = re.fullmatch(r"/files/([\w.-]+)", rec.path)
        if m and m.group(1) in self.files:  # result URLs are pre-signed: no API key needed
            data, ctype = self.files[m.group(1)]
            return 200, data, {"Content-Type": ctype}
        if rec.headers.get("authorization", "") != "Bearer sk-test":
            return _json(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                        "param": None,
                    }
                },
            )
        path = rec.path
        if path == "/v1/chat/completions" and rec.method == "POST":
            return self._chat(rec)
        if path == "/v1/images/generations" and rec.method == "POST":
            size = rec.json.get("size") or "1024x1024"
            w, h = (int(x) for x in size.split("x"))
            return self._image_reply(rec.json.get("response_format"), make_png(w, h), size)
        if path == "/v1/images/edits" and rec.method == "POST":
            return self._edit(rec)
        if path == "/v1/videos" and rec.method == "POST":
            return self._video_create(rec)
        m = re.fullmatch(r"/v1/videos/([\w-]+)(/content)?", path)
        if m and rec.method == "GET":
            return self._video_get(m.group(1), bool(m.group(2)))
        return _json(
            404,
            {
                "error": {
                    "message": f"Unknown path {path}",
                    "type": "invalid_request_error",
                    "code": "unknown_url",
                    "param": None,
                }
            },
        )

    def _chat(self, rec: Recorded):
        body = rec.json
        if self.chat_replies:
            content = self.chat_replies.pop(0)
        else:
            user = next(m["content"] for m in body["messages"] if m["role"] == "user")
            topic = user.split("about:", 1)[-1].split("\n", 1)[0].strip() or "our product"
            schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
            everything = "\n".join(str(m.get("content") or "") for m in body["messages"])
            content = default_reply(everything, schema, topic)
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
        finish = "stop"
        if self.chat_refusal:
            message = {"role": "assistant", "content": None, "refusal": self.chat_refusal}
        return _json(
            200,
            {
                "id": "chatcmpl-" + uuid.uuid4().hex[:10],
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 60, "total_tokens": 110},
            },
        )

    def _image_reply(self, response_format: str | None, png: bytes, size: str):
        item: dict[str, Any]
        if response_format == "url" or self.image_response_as_url:
            name = uuid.uuid4().hex + ".png"
            self.files[name] = (png, "image/png")
            item = {"url": f"{self.url}/files/{name}"}
        else:
            item = {"b64_json": base64.b64encode(png).decode()}
        return _json(200, {"created": int(time.time()), "data": [item], "size": size, "output_format": "png"})

    def _edit(self, rec: Recorded):
        if "image" not in rec.files and "image[]" not in rec.files:
            return _json(
                400,
                {
                    "error": {
                        "message": "Missing required parameter: 'image'.",
                        "type": "invalid_request_error",
                        "code": None,
                        "param": "image",
                    }
                },
            )
        _filename, _ctype, data = rec.files.get("image") or rec.files["image[]"]
        size = rec.form.get("size") or "1024x1024"
        w, h = (int(x) for x in size.split("x"))
        src = Image.open(io.BytesIO(data)).convert("RGB").resize((w, h))
        edited = Image.eval(src, lambda v: min(255, int(v * 1.3) + 20))  # "brighter"
        out = io.BytesIO()
        edited.save(out, "PNG")
        return self._image_reply(rec.form.get("response_format"), out.getvalue(), size)

    def _video_create(self, rec: Recorded):
        vid = "video_" + uuid.uuid4().hex[:16]
        job = {
            "id": vid,
            "object": "video",
            "model": rec.form.get("model", "sora-2"),
            "status": "queued",
            "progress": 0,
            "created_at": int(time.time()),
            "size": rec.form.get("size", "720x1280"),
            "seconds": rec.form.get("seconds", "4"),
            "prompt": rec.form.get("prompt"),
            "_polls": 0,
        }
        self.videos[vid] = job
        return _json(200, {k: v for k, v in job.items() if not k.startswith("_")})

    def _video_get(self, vid: str, content: bool):
        job = self.videos.get(vid)
        if job is None:
            return _json(
                404,
                {
                    "error": {
                        "message": "Video not found",
                        "type": "invalid_request_error",
                        "code": None,
                        "param": None,
                    }
                },
            )
        if content:
            if job["status"] != "completed":
                return _json(
                    409,
                    {
                        "error": {
                            "message": "Video is not ready",
                            "type": "invalid_request_error",
                            "code": None,
                            "param": None,
                        }
                    },
                )
            w, h = small_dims(*(int(x) for x in job["size"].split("x")))
            return 200, make_mp4(w, h, seconds=1.0, audio=True), {"Content-Type": "video/mp4"}
        job["_polls"] += 1
        if job["_polls"] >= self.video_polls_until_done:
            if self.video_failure:
                job["status"] = "failed"
                job["error"] = {"code": self.video_failure[0], "message": self.video_failure[1]}
            else:
                job["status"], job["progress"], job["completed_at"] = "completed", 100, int(time.time())
        else:
            job["status"], job["progress"] = "in_progress", 50
        return _json(200, {k: v for k, v in job.items() if not k.startswith("_")})


# ---------------------------------------------------------------------------------------
# Gemini (Google Gen AI, Developer API)
# ---------------------------------------------------------------------------------------

_GEMINI_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}

# Output sizes per aspect ratio, scaled down from the real image model's table to stay fast.
GEMINI_IMAGE_DIMS = {
    "1:1": (256, 256),
    "2:3": (208, 312),
    "3:2": (312, 208),
    "3:4": (224, 296),
    "4:3": (296, 224),
    "4:5": (228, 286),
    "5:4": (286, 228),
    "9:16": (192, 336),
    "16:9": (336, 192),
    "21:9": (392, 168),
}


class GeminiFake(FakeServer):
    def __init__(self, api_key: str = "gm-test"):
        self.api_key = api_key
        self.text_replies: list[str] = []
        self.block_reason: str | None = None  # promptFeedback.blockReason
        self.finish_reason: str = "STOP"
        self.operations: dict[str, dict[str, Any]] = {}
        self.operation_polls_until_done = 2
        self.video_filtered_reason: str | None = None
        self.files: dict[str, bytes] = {}
        super().__init__()

    def error_response(self, failure: Failure):
        return _json(
            failure.status,
            {
                "error": {
                    "code": failure.status,
                    "message": failure.message,
                    "status": _GEMINI_STATUS.get(failure.status, "UNKNOWN"),
                }
            },
        )

    def route(self, rec: Recorded):
        if rec.headers.get("x-goog-api-key") != self.api_key:
            return _json(
                400,
                {
                    "error": {
                        "code": 400,
                        "message": "API key not valid. Please pass a valid API key.",
                        "status": "INVALID_ARGUMENT",
                    }
                },
            )
        m = re.fullmatch(r"/v1beta/models/([\w.\-]+):generateContent", rec.path)
        if m and rec.method == "POST":
            return self._generate(m.group(1), rec.json)
        m = re.fullmatch(r"/v1beta/models/([\w.\-]+):predictLongRunning", rec.path)
        if m and rec.method == "POST":
            return self._predict(m.group(1), rec.json)
        m = re.fullmatch(r"/v1beta/(models/[\w.\-]+/operations/[\w\-]+)", rec.path)
        if m and rec.method == "GET":
            return self._operation(m.group(1))
        m = re.fullmatch(r"/v1beta/files/([a-z0-9]+):download", rec.path)
        if m and rec.method == "GET" and m.group(1) in self.files:
            return 200, self.files[m.group(1)], {"Content-Type": "video/mp4"}
        return _json(
            404, {"error": {"code": 404, "message": f"Unknown path {rec.path}", "status": "NOT_FOUND"}}
        )

    def _generate(self, model: str, body: dict):
        config = body.get("generationConfig") or {}
        if self.block_reason:
            return _json(200, {"promptFeedback": {"blockReason": self.block_reason}, "modelVersion": model})
        modalities = [m.upper() for m in config.get("responseModalities") or []]
        parts: list[dict[str, Any]]
        if "IMAGE" in modalities:
            ratio = (config.get("imageConfig") or {}).get("aspectRatio")
            in_image = next(
                (p["inlineData"] for c in body["contents"] for p in c.get("parts", []) if "inlineData" in p),
                None,
            )
            if ratio is None and in_image is not None:  # edits keep the input's aspect ratio
                w, h = Image.open(io.BytesIO(b64decode_any(in_image["data"]))).size
                ratio = min(
                    GEMINI_IMAGE_DIMS, key=lambda r: abs(int(r.split(":")[0]) / int(r.split(":")[1]) - w / h)
                )
            w, h = GEMINI_IMAGE_DIMS.get(ratio or "1:1", (256, 256))
            png = make_png(w, h, (200, 60, 60) if in_image else (30, 102, 245))
            parts = [
                {"text": "Here is your image."},
                {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(png).decode()}},
            ]
        else:
            if self.text_replies:
                text = self.text_replies.pop(0)
            else:
                user = " ".join(p.get("text", "") for c in body["contents"] for p in c.get("parts", []))
                topic = user.split("about:", 1)[-1].split("\n", 1)[0].strip() or "our product"
                system = " ".join(
                    p.get("text", "") for p in (body.get("systemInstruction") or {}).get("parts", [])
                )
                text = default_reply(system + "\n" + user, config.get("responseJsonSchema"), topic)
            parts = [{"text": text}]
        return _json(
            200,
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": parts},
                        "finishReason": self.finish_reason,
                        "index": 0,
                    }
                ],
                "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 80, "totalTokenCount": 120},
                "modelVersion": model,
                "responseId": uuid.uuid4().hex[:16],
            },
        )

    def _predict(self, model: str, body: dict):
        name = f"models/{model}/operations/{uuid.uuid4().hex[:12]}"
        self.operations[name] = {"body": body, "polls": 0, "model": model}
        return _json(200, {"name": name})

    def _operation(self, name: str):
        op = self.operations.get(name)
        if op is None:
            return _json(
                404, {"error": {"code": 404, "message": "Operation not found", "status": "NOT_FOUND"}}
            )
        op["polls"] += 1
        if op["polls"] < self.operation_polls_until_done:
            return _json(200, {"name": name})
        response: dict[str, Any] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse"
        }
        if self.video_filtered_reason:
            response["generateVideoResponse"] = {
                "raiMediaFilteredCount": 1,
                "raiMediaFilteredReasons": [self.video_filtered_reason],
            }
        else:
            params = op["body"].get("parameters") or {}
            ratio = params.get("aspectRatio", "16:9")
            w, h = (1280, 720) if ratio == "16:9" else (720, 1280)
            fid = uuid.uuid4().hex[:12]
            self.files[fid] = make_mp4(*small_dims(w, h), seconds=1.0, audio=True)
            uri = f"https://generativelanguage.googleapis.com/v1beta/files/{fid}:download?alt=media"
            response["generateVideoResponse"] = {"generatedSamples": [{"video": {"uri": uri}}]}
        return _json(200, {"name": name, "done": True, "response": response})


# ---------------------------------------------------------------------------------------
# Replicate
# ---------------------------------------------------------------------------------------


def sign_replicate_webhook(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"{webhook_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


class ReplicateFake(FakeServer):
    """Replicate HTTP API subset.

    ``kinds`` maps a model ("owner/name") or version id to the kind of output it produces:
    ``text`` (list of tokens), ``image`` (list of file URLs) or ``video`` (one file URL).
    """

    def __init__(self, kinds: dict[str, str], *, webhook_secret: str | None = None, token: str = "r8_test"):
        self.kinds = dict(kinds)
        self.token = token
        self.webhook_secret = (
            webhook_secret or "whsec_" + base64.b64encode(b"replicate-fake-signing-key-0123").decode()
        )
        self.predictions: dict[str, dict[str, Any]] = {}
        self.files: dict[str, tuple[bytes, str]] = {}
        self.text_output: str | None = None
        self.text_outputs: list[str] = []  # scripted text outputs, one per prediction (FIFO)
        self.fail_predictions_with: str | None = None
        self.webhook_delay = 0.01
        self.webhook_deliveries: list[tuple[str, int]] = []  # (url, receiver status)
        self._webhook_threads: list[threading.Thread] = []
        super().__init__()

    def error_response(self, failure: Failure):
        titles = {
            400: "Bad Request",
            401: "Unauthenticated",
            403: "Forbidden",
            404: "Not found",
            422: "Input validation failed",
            429: "Too Many Requests",
            500: "Internal Server Error",
        }
        return _json(
            failure.status,
            {
                "type": None,
                "title": titles.get(failure.status, "Error"),
                "status": failure.status,
                "detail": failure.message,
            },
            {"Content-Type": "application/problem+json"},
        )

    def route(self, rec: Recorded):
        m = re.fullmatch(r"/files/([\w.-]+)", rec.path)
        if m and rec.method == "GET" and m.group(1) in self.files:  # delivery URLs need no token
            data, ctype = self.files[m.group(1)]
            return 200, data, {"Content-Type": ctype}
        if rec.headers.get("authorization") != f"Bearer {self.token}":
            return self.error_response(Failure(401, "You did not pass a valid authentication token", "", 1))
        if rec.path == "/v1/predictions" and rec.method == "POST":
            return self._create(rec.json.get("version"), rec.json)
        m = re.fullmatch(r"/v1/models/([\w.\-]+)/([\w.\-]+)/predictions", rec.path)
        if m and rec.method == "POST":
            return self._create(f"{m.group(1)}/{m.group(2)}", rec.json)
        m = re.fullmatch(r"/v1/predictions/(\w+)", rec.path)
        if m and rec.method == "GET":
            pred = self.predictions.get(m.group(1))
            if pred is None:
                return self.error_response(Failure(404, "The requested resource could not be found.", "", 1))
            self._advance(pred)
            return _json(200, self._public(pred))
        return self.error_response(Failure(404, f"Unknown path {rec.path}", "", 1))

    def _public(self, pred: dict) -> dict:
        return {k: v for k, v in pred.items() if not k.startswith("_")}

    def _create(self, model_ref: str | None, body: dict):
        kind = self.kinds.get(model_ref or "")
        if kind is None:
            return self.error_response(Failure(404, f"Model {model_ref} not found", "", 1))
        if not isinstance(body.get("input"), dict) or "prompt" not in body["input"]:
            return self.error_response(Failure(422, "input: prompt is required", "", 1))
        pid = uuid.uuid4().hex[:20]
        model = model_ref if "/" in model_ref else "owner/versioned-model"
        pred: dict[str, Any] = {
            "id": pid,
            "model": model,
            "version": model_ref if "/" not in model_ref else "hidden",
            "input": body["input"],
            "logs": "",
            "output": None,
            "error": None,
            "status": "starting",
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            "started_at": None,
            "completed_at": None,
            "urls": {
                "get": f"{self.url}/v1/predictions/{pid}",
                "cancel": f"{self.url}/v1/predictions/{pid}/cancel",
            },
            "webhook": body.get("webhook"),
            "webhook_events_filter": body.get("webhook_events_filter"),
            "_kind": kind,
            "_step": 0,
        }
        self.predictions[pid] = pred
        if body.get("webhook"):
            thread = threading.Thread(target=self._run_with_webhook, args=(pred,), daemon=True)
            self._webhook_threads.append(thread)
            thread.start()
        return _json(201, self._public(pred))

    def _advance(self, pred: dict) -> None:
        if pred["status"] in ("succeeded", "failed", "canceled"):
            return
        pred["_step"] += 1
        if pred["_step"] == 1:
            pred["status"], pred["started_at"] = (
                "processing",
                time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            )
            pred["logs"] = "running model\n"
            return
        self._finish(pred)

    def _finish(self, pred: dict) -> None:
        pred["completed_at"] = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        if self.fail_predictions_with:
            pred["status"], pred["error"] = "failed", self.fail_predictions_with
            return
        kind, inp = pred["_kind"], pred["input"]
        if kind == "text":
            if self.text_outputs:
                text = self.text_outputs.pop(0)
            elif self.text_output is not None:
                text = self.text_output
            else:
                prompt_text = str(inp.get("system_prompt") or "") + "\n" + str(inp["prompt"])
                text = default_reply(prompt_text, None, inp["prompt"][:40])
            pred["output"] = [text[i : i + 7] for i in range(0, len(text), 7)]  # streamed tokens
        elif kind == "image":
            ratio = inp.get("aspect_ratio", "1:1")
            source = next(
                (v for v in inp.values() if isinstance(v, str) and v.startswith("data:image/")), None
            )
            if ratio == "match_input_image" and source:
                a, b = Image.open(io.BytesIO(base64.b64decode(source.split(",", 1)[1]))).size
            else:
                a, b = (int(x) for x in ratio.split(":"))
            w, h = small_dims(a * 100, b * 100, longest=320)
            name = pred["id"] + ".png"
            self.files[name] = (make_png(w, h), "image/png")
            pred["output"] = [f"{self.url}/files/{name}"]
        elif kind == "video":
            ratio = inp.get("aspect_ratio", "16:9")
            a, b = (int(x) for x in ratio.split(":"))
            name = pred["id"] + ".mp4"
            self.files[name] = (make_mp4(*small_dims(a * 100, b * 100), seconds=1.0), "video/mp4")
            pred["output"] = f"{self.url}/files/{name}"
        pred["status"] = "succeeded"
        pred["metrics"] = {"predict_time": 0.01}

    def _run_with_webhook(self, pred: dict) -> None:
        time.sleep(self.webhook_delay)
        while pred["status"] not in ("succeeded", "failed", "canceled"):
            self._advance(pred)
        events = pred.get("webhook_events_filter") or ["start", "output", "logs", "completed"]
        if "completed" in events:
            self.send_webhook(pred["webhook"], self._public(pred))

    def send_webhook(
        self,
        url: str,
        payload: dict,
        *,
        secret: str | None = None,
        timestamp: int | None = None,
        tamper: bool = False,
    ) -> int:
        body = json.dumps(payload).encode()
        wid = "msg_" + uuid.uuid4().hex[:20]
        ts = int(time.time()) if timestamp is None else timestamp
        signature = sign_replicate_webhook(secret or self.webhook_secret, wid, ts, body)
        if tamper:
            body = body.replace(b'"succeeded"', b'"failed"')
        req = urllib.request.Request(
            url,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "webhook-id": wid,
                "webhook-timestamp": str(ts),
                "webhook-signature": signature,
                "User-Agent": "Replicate-Webhooks/1.0",
            },
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            status = resp.status
        self.webhook_deliveries.append((url, status))
        return status

    def wait_for_webhooks(self, timeout: float = 10.0) -> None:
        for thread in self._webhook_threads:
            thread.join(timeout)


class WebhookReceiver(FakeServer):
    """Our side of a webhook: records POSTs, answers 200 and signals waiters."""

    def __init__(self):
        self.received = threading.Event()
        super().__init__()

    def route(self, rec: Recorded):
        self.received.set()
        return _json(200, {"ok": True})

    def error_response(self, failure: Failure):
        return _json(failure.status, {"detail": failure.message})

    def wait(self, timeout: float = 10.0) -> Recorded:
        if not self.received.wait(timeout):
            raise TimeoutError("no webhook arrived")
        return self.requests[-1]
