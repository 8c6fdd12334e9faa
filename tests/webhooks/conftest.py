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


@pytest.fixture
def broker(settings):
    """Tasks go to the real broker (Redis) instead of running eagerly: ``broker("webhooks")``
    takes the messages queued there so far and returns ``[(task name, args), ...]``. The
    project's own enqueueing code runs unchanged; no worker runs them here."""
    import json

    from config.celery import app

    assert settings.REDIS_URL, "the broker is Redis (a services test)"
    app.conf.task_always_eager = False

    def take(queue: str) -> list[tuple[str, list]]:
        out = []
        with app.connection_for_read() as conn:
            channel = conn.default_channel
            while (message := channel.basic_get(queue, no_ack=True)) is not None:
                body = message.body if isinstance(message.body, str) else message.body.decode()
                args, _kwargs, _embed = json.loads(body)
                out.append((message.headers["task"], args))
        return out

    for queue in ("webhooks", "default"):  # nothing left from an earlier run
        take(queue)
    yield take
    for queue in ("webhooks", "default"):
        take(queue)
    app.conf.task_always_eager = True
