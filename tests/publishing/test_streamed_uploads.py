"""Issue 22: videos go to TikTok, YouTube, LinkedIn and X (issue 28: and Pinterest) from the stored file chunk by chunk,
never read whole into memory. The storage file is wrapped to count what the client reads: no
read is larger than one chunk, the whole-file loader is never called, and every byte arrives
in order."""

from __future__ import annotations

import io
import os
from typing import Any

import pytest

from apps.publishing.platforms.base import MediaItem, PostRequest
from tests.publishing.conftest import client_for

MB = 1024 * 1024


class CountingFile(io.RawIOBase):
    """A stored file that records the largest single read a client made from it."""

    def __init__(self, path: str, stats: dict[str, int]) -> None:
        self._fh = open(path, "rb")  # noqa: SIM115 - closed by close()
        self._stats = stats

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        data = self._fh.read(n)
        self._stats["max_read"] = max(self._stats["max_read"], len(data))
        self._stats["read"] += len(data)
        return data

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._fh.seek(offset, whence)

    def tell(self) -> int:
        return self._fh.tell()

    def close(self) -> None:
        self._fh.close()
        super().close()


@pytest.fixture
def stored(tmp_path):
    def make(size: int) -> tuple[MediaItem, bytes, dict[str, int]]:
        blob = os.urandom(size)
        path = tmp_path / "clip.mp4"
        path.write_bytes(blob)
        stats = {"max_read": 0, "read": 0}

        def whole() -> bytes:
            raise AssertionError("the video was read whole into memory")

        item = MediaItem(
            kind="video",
            url="https://cdn.postforge.test/clip.mp4",
            content_type="video/mp4",
            width=1080,
            height=1920,
            seconds=20.0,
            loader=whole,
            opener=lambda: CountingFile(str(path), stats),  # type: ignore[arg-type,return-value]
            size=size,
        )
        return item, blob, stats

    return make


CASES: dict[str, dict[str, Any]] = {
    # platform: (file size, the client's chunk setting, the largest chunk it may send)
    "tiktok": {"size": 12 * MB, "attr": ("chunk_size", 5 * MB), "largest": 7 * MB},  # 5 MB + 7 MB
    "youtube": {"size": 3 * MB + 512 * 1024, "attr": ("chunk_size", MB), "largest": MB},
    "linkedin": {"size": 9 * MB, "attr": None, "largest": 4 * MB},  # LinkedIn's 4 MB parts
    "x": {"size": 3 * MB + 512 * 1024, "attr": ("segment_size", MB), "largest": MB},
    # one multipart form to the presigned storage URL, streamed (issue 28: it was read whole)
    "pinterest": {"size": 3 * MB, "attr": None, "largest": MB},
}


def received(fake, platform: str) -> bytes:
    if platform == "tiktok":
        return bytes(next(iter(fake.publishes.values()))["received"])
    if platform == "youtube":
        return next(iter(fake.videos.values()))["bytes"]
    if platform in ("x", "pinterest"):
        return next(iter(fake.media.values()))["bytes"]
    return b"".join(p.body for p in fake.calls("upload"))  # LinkedIn's parts, in order


@pytest.mark.parametrize("platform", sorted(CASES))
def test_a_video_is_sent_from_storage_one_chunk_at_a_time(make_fake, stored, platform):
    case = CASES[platform]
    fake = make_fake(platform)
    client = client_for(fake)
    if case["attr"]:
        setattr(client, *case["attr"])
    item, blob, stats = stored(case["size"])
    title = "Clip" if platform in ("youtube", "pinterest") else ""
    options = {"board_id": next(iter(fake.boards))} if platform == "pinterest" else {}
    if platform == "pinterest":
        item.thumbnail_url = "https://cdn.postforge.test/cover.jpg"
    result = client.publish(PostRequest(caption="Spring clip", media=[item], title=title, options=options))

    assert result.external_id or result.pending
    assert received(fake, platform) == blob  # every byte, in order
    assert stats["read"] == len(blob)  # read once, never twice
    assert 0 < stats["max_read"] <= case["largest"] < len(blob)  # one chunk in memory at a time
