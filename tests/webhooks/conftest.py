import pytest

from .receiver import Receiver


@pytest.fixture
def loopback(settings):
    """Outbound webhooks may reach this machine's loopback (as WEBHOOK_ALLOWED_CIDRS lets them)."""
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_CIDRS = ["127.0.0.0/8"]
    settings.WEBHOOK_TIMEOUT_SECONDS = 1.0


@pytest.fixture
def receiver(loopback):
    with Receiver() as r:
        yield r


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now

    def advance(self, seconds: float) -> None:
        import datetime

        self.now += datetime.timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    from django.utils import timezone

    from apps.webhooks import services

    c = Clock(timezone.now())
    monkeypatch.setattr(services, "clock", c)
    return c
