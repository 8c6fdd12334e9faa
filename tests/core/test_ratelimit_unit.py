"""apps/core/ratelimit.py on a frozen clock (issue 24): exact windows, Retry-After and
X-RateLimit-Reset, exactly at the limit, two charges in one window, two credentials, the
pruning of the process-local counts; the same checks on both backends (the process-local
counter, and Redis's Lua scripts when REDIS_URL is set: `services`)."""

from __future__ import annotations

import uuid

import pytest
import time_machine
from django.conf import settings as django_settings

from apps.core import ratelimit

# 1_800_000_000 is a multiple of 60: the window [..000, ..060) holds NOW
START = 1_800_000_000
NOW = START + 30.25


@pytest.fixture(params=["local", pytest.param("redis", marks=pytest.mark.services)])
def backend(request, settings):
    """The backend under test; a fresh credential prefix a test (Redis keeps its keys a minute)."""
    if request.param == "local":
        settings.REDIS_URL = ""
    else:
        assert django_settings.REDIS_URL, "the Redis backend needs REDIS_URL"
    ratelimit.reset_local()
    yield request.param
    ratelimit.reset_local()


@pytest.fixture
def cred():
    prefix = uuid.uuid4().hex[:8]
    return lambda name: f"{prefix}-{name}"


@pytest.fixture
def clock():
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


def test_decision_retry_after_is_the_seconds_left_and_at_least_one(clock):
    assert ratelimit.Decision(False, 5, 0, reset=START + 60).retry_after == 30  # 29.75 s left, rounded up
    assert ratelimit.Decision(False, 5, 0, reset=START + 31).retry_after == 1
    assert ratelimit.Decision(False, 5, 0, reset=START + 30).retry_after == 1  # none left: still 1
    assert ratelimit.Decision(False, 5, 0, reset=START + 29).retry_after == 1
    clock.move_to(START + 0.0)
    assert ratelimit.Decision(False, 5, 0, reset=START + 60).retry_after == 60


def test_limits_per_bucket_come_from_settings(settings):
    settings.RATE_LIMIT_DEFAULT, settings.RATE_LIMIT_GENERATION = 7, 3
    settings.RATE_LIMIT_BATCH, settings.AUTH_FAILURE_LIMIT = 2, 9
    assert [ratelimit.limit_for(b) for b in ("default", "generation", "batch", "auth_failure")] == [
        7,
        3,
        2,
        9,
    ]
    with pytest.raises(KeyError):
        ratelimit.limit_for("other")


def test_hit_counts_up_to_exactly_the_limit(backend, clock, cred):
    decisions = [ratelimit.hit(cred("a"), limit=3) for _ in range(5)]
    assert [(d.allowed, d.limit, d.remaining, d.reset) for d in decisions] == [
        (True, 3, 2, START + 60),
        (True, 3, 1, START + 60),
        (True, 3, 0, START + 60),  # the third of three: allowed, none left
        (False, 3, 0, START + 60),
        (False, 3, 0, START + 60),
    ]
    assert decisions[-1].retry_after == 30


def test_hit_uses_the_buckets_limit_by_default(backend, clock, cred, settings):
    settings.RATE_LIMIT_GENERATION = 2
    assert [ratelimit.hit(cred("a"), "generation").allowed for _ in range(3)] == [True, True, False]
    assert ratelimit.hit(cred("a"), "generation").limit == 2


def test_credentials_and_buckets_count_apart(backend, clock, cred):
    assert ratelimit.hit(cred("a"), limit=1).allowed
    assert not ratelimit.hit(cred("a"), limit=1).allowed
    assert ratelimit.hit(cred("b"), limit=1).allowed  # another credential
    assert ratelimit.hit(cred("a"), "generation", limit=1).allowed  # another bucket
    assert ratelimit.hit(cred("b"), limit=2).remaining == 0


def test_a_new_window_starts_a_new_count(backend, clock, cred):
    assert ratelimit.hit(cred("a"), limit=1).allowed
    clock.move_to(START + 59.999)
    late = ratelimit.hit(cred("a"), limit=1)
    assert (late.allowed, late.reset, late.retry_after) == (False, START + 60, 1)
    clock.move_to(START + 60)
    fresh = ratelimit.hit(cred("a"), limit=1)
    assert (fresh.allowed, fresh.remaining, fresh.reset) == (True, 0, START + 120)
    assert fresh.retry_after == 60


def test_peek_does_not_count_and_refuses_at_the_limit(backend, clock, cred, settings):
    settings.AUTH_FAILURE_LIMIT = 2
    first = ratelimit.peek(cred("ip"), "auth_failure")
    assert (first.allowed, first.limit, first.remaining, first.reset) == (True, 2, 2, START + 60)
    ratelimit.hit(cred("ip"), "auth_failure")
    assert ratelimit.peek(cred("ip"), "auth_failure").remaining == 1
    assert ratelimit.peek(cred("ip"), "auth_failure").allowed  # one failure of two
    ratelimit.hit(cred("ip"), "auth_failure")
    at = ratelimit.peek(cred("ip"), "auth_failure")
    assert (at.allowed, at.remaining) == (False, 0)  # exactly at the limit: the next is refused
    assert ratelimit.peek(cred("other"), "auth_failure").allowed
    clock.move_to(START + 60)
    assert ratelimit.peek(cred("ip"), "auth_failure").allowed


def test_charge_counts_all_or_nothing(backend, clock, cred, settings):
    settings.RATE_LIMIT_BATCH = 2  # the bucket's own figure: the limits given here differ from it
    first = ratelimit.charge(cred("a"), "batch", 3, limit=6)
    assert (first.allowed, first.limit, first.remaining, first.reset) == (True, 6, 3, START + 60)
    refused = ratelimit.charge(cred("a"), "batch", 4, limit=6)
    assert (refused.allowed, refused.limit, refused.remaining) == (False, 6, 3)  # nothing counted
    exact = ratelimit.charge(cred("a"), "batch", 3, limit=6)  # 3 + 3 = exactly the limit
    assert (exact.allowed, exact.remaining) == (True, 0)
    assert not ratelimit.charge(cred("a"), "batch", 1, limit=6).allowed
    # another credential has its own count
    other = ratelimit.charge(cred("b"), "batch", 6, limit=6)
    assert (other.allowed, other.remaining) == (True, 0)
    # and a charge is seen by hit and peek in the same bucket
    assert ratelimit.hit(cred("c"), "batch", limit=6).remaining == 5
    assert ratelimit.charge(cred("c"), "batch", 5, limit=6).remaining == 0
    assert ratelimit.peek(cred("c"), "batch").remaining == 0


def test_two_charges_in_one_window_add_up_and_a_new_window_forgets_them(backend, clock, cred):
    assert ratelimit.charge(cred("a"), "generation", 4, limit=11).remaining == 7
    assert ratelimit.charge(cred("a"), "generation", 4, limit=11).remaining == 3
    assert not ratelimit.charge(cred("a"), "generation", 4, limit=11).allowed
    clock.move_to(START + 60)
    again = ratelimit.charge(cred("a"), "generation", 11, limit=11)
    assert (again.allowed, again.remaining, again.reset) == (True, 0, START + 120)


@pytest.mark.services
def test_redis_keys_expire_a_second_after_their_window(clock, cred):
    """The counters outlive their window by one second (EXPIRE window + 1), on Redis's clock."""
    from apps.core import redisconn

    assert django_settings.REDIS_URL, "needs REDIS_URL"
    client = redisconn.client(django_settings.REDIS_URL)
    ratelimit.hit(cred("h"), limit=3)
    ratelimit.charge(cred("c"), "batch", 2, limit=3)
    for key in (f"pf:rl:default:{cred('h')}:{START}", f"pf:rl:batch:{cred('c')}:{START}"):
        assert client.ttl(key) in (60, 61), key


def test_charge_uses_the_buckets_limit_by_default(backend, clock, cred, settings):
    settings.RATE_LIMIT_BATCH = 4
    assert ratelimit.charge(cred("a"), "batch", 4).allowed
    refused = ratelimit.charge(cred("a"), "batch", 1)
    assert (refused.allowed, refused.limit, refused.remaining) == (False, 4, 0)


def test_the_local_counts_drop_past_windows_past_fifty_thousand_keys(clock, settings):
    settings.REDIS_URL = ""
    ratelimit.reset_local()
    for i in range(50_000):
        ratelimit.hit(f"k{i}", limit=1)
    assert len(ratelimit._local_counts) == 50_000  # at the threshold: nothing dropped
    ratelimit.hit("k-current", limit=1)
    assert len(ratelimit._local_counts) == 50_001  # past it, but every window is current
    clock.move_to(START + 60)  # the first window has just ended
    assert ratelimit.hit("k-next", limit=1).allowed
    assert set(ratelimit._local_counts) == {f"pf:rl:default:k-next:{START + 60}"}
    ratelimit.reset_local()
    assert ratelimit._local_counts == {}


def test_the_local_key_names_bucket_credential_and_window(clock, settings):
    settings.REDIS_URL = ""
    ratelimit.reset_local()
    ratelimit.hit("cred", "generation", limit=5)
    ratelimit.charge("cred", "batch", 2, limit=5)
    assert ratelimit._local_counts == {
        f"pf:rl:generation:cred:{START}": (START + 60, 1),
        f"pf:rl:batch:cred:{START}": (START + 60, 2),
    }


@pytest.mark.django_db
def test_the_headers_state_the_window_exactly(api, clock, settings):
    settings.RATE_LIMIT_DEFAULT = 2
    ok = api.get("/v1/brands")
    assert (ok["X-RateLimit-Limit"], ok["X-RateLimit-Remaining"], ok["X-RateLimit-Reset"]) == (
        "2",
        "1",
        str(START + 60),
    )
    assert api.get("/v1/brands").status_code == 200
    refused = api.get("/v1/brands")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "30"
    assert refused["X-RateLimit-Retry-After"] == "30"
    assert refused["X-RateLimit-Reset"] == str(START + 60)
    assert refused.json()["error"]["details"]["retryAfter"] == 30
