"""Issue 28: media pulled from URLs (a provider's result named by URL) leaves through the checked
way out (apps/core/outbound.py): an address inside is refused before any connection, and a
refused download fails the generation for good (not retried)."""

from __future__ import annotations

from typing import Any

import pytest

from apps.core import outbound
from apps.generation.base import EngineError, ImageRequest
from apps.generation.openai_engine import OpenAIEngine
from apps.generation.replicate_engine import ReplicateEngine

from .provider_fakes import OpenAIFake


@pytest.fixture
def recorded(monkeypatch) -> list[Any]:
    attempts: list[Any] = []

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
        attempts.append(address)
        raise ConnectionRefusedError(111, "refused by the test (nothing leaves this machine)")

    monkeypatch.setattr(
        outbound,
        "resolve",
        lambda host, port: {
            "cdn.example": ["10.0.0.7"],
            "mapped.example": ["::ffff:169.254.169.254"],
            "public.example": ["93.184.216.34"],
        }.get(host, []),
    )
    monkeypatch.setattr("socket.create_connection", create_connection)
    return attempts


def test_an_openai_url_answer_pointing_inside_is_never_fetched(settings):
    """The fake answers with a URL on 127.0.0.1; with loopback no longer exempt it is inside."""
    settings.OUTBOUND_ALLOWED_CIDRS = []
    with OpenAIFake() as fake:
        engine = OpenAIEngine(
            api_key="sk-test", base_url=fake.base_url, image_model="dall-e-3", max_retries=0
        )
        fake.image_response_as_url = True
        with pytest.raises(EngineError) as refused:
            engine.image(ImageRequest(prompt="banner", width=1500, height=500))
        assert not fake.requests_to("/files/")  # the generation was asked, the URL never fetched
    assert "refused to download" in str(refused.value) and not refused.value.retryable


@pytest.mark.parametrize(
    "url",
    [
        "https://169.254.169.254/latest/meta-data/iam",
        "https://cdn.example/out.png",
        "https://mapped.example/out.png",
        "https://[::ffff:127.0.0.1]/out.png",
        "https://0.0.0.0/out.png",
        "https://2130706433/out.png",
        "http://public.example/out.png",  # public, but not https
    ],
)
def test_replicate_outputs_inside_are_refused_without_a_connection(url, settings, recorded):
    settings.OUTBOUND_ALLOWED_CIDRS = []
    engine = ReplicateEngine(api_token="r8_test", base_url="http://127.0.0.1:9", image_model="bfl/flux-test")
    with pytest.raises(EngineError) as refused:
        engine._download(url)
    assert "refused to download" in str(refused.value) and not refused.value.retryable
    assert recorded == []


def test_a_public_output_is_fetched_from_its_checked_address(settings, recorded):
    engine = ReplicateEngine(api_token="r8_test", base_url="http://127.0.0.1:9", image_model="bfl/flux-test")
    with pytest.raises(EngineError) as failed:
        engine._download("https://public.example/out.png")
    assert failed.value.retryable and recorded == [("93.184.216.34", 443)]
