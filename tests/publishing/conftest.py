"""Fixtures: one fake server per platform and a client pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from apps.publishing.platforms.base import PlatformClient
from apps.publishing.platforms.registry import get_client_class
from tests.publishing.fakes import FAKES, TOKEN, FakePlatform

PLATFORMS = sorted(FAKES)


@pytest.fixture
def make_fake() -> Iterator[Callable[[str], FakePlatform]]:
    started: list[FakePlatform] = []

    def make(platform: str) -> FakePlatform:
        fake = FAKES[platform]()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        fake.close()


def client_for(fake: FakePlatform, **overrides: Any) -> PlatformClient:
    """A real client on the fake's base URL, polling without waiting: the waits it asks for
    are recorded in ``client.slept`` instead of slept."""
    slept: list[float] = []
    options: dict[str, Any] = {
        "sleep": slept.append,
        "access_token": TOKEN,
        "account_id": fake.account.external_id,
        "base_url": fake.base_url,
        "poll_interval": 0,
        "poll_timeout": 5,
        "timeout": (2, 5),
    }
    options.update(overrides)
    client = get_client_class(fake.platform)(**options)
    client.slept = slept  # type: ignore[attr-defined]
    return client


def _platform_fixture(platform: str) -> Callable[..., Any]:
    @pytest.fixture(name=f"{platform}_fake")
    def fixture(make_fake: Callable[[str], FakePlatform]) -> FakePlatform:
        return make_fake(platform)

    return fixture


for _platform in PLATFORMS:
    globals()[f"{_platform}_fake"] = _platform_fixture(_platform)


@pytest.fixture(params=PLATFORMS)
def platform_fake(request: pytest.FixtureRequest, make_fake: Callable[[str], FakePlatform]) -> FakePlatform:
    """Every platform's fake in turn."""
    return make_fake(request.param)
