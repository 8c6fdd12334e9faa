"""The generation task's declared policy (apps.core.tasking, generation.tasks.GenerateTask) against
a provider speaking OpenAI's wire format: a retryable engine error tries again, a permanent one
or the last retry fails the content with its reason, and neither reaches the caller."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings

from apps.brands.models import Brand
from apps.content.models import Content
from apps.content.services import GenerationInput, content_request_generation
from apps.generation.engines import _build
from apps.generation.tasks import generate_content
from tests.generation.provider_fakes import OpenAIFake

pytestmark = pytest.mark.django_db(transaction=True)

EMPTY = ""  # an empty reply is retryable (a reply that is not JSON gets a repair turn instead)


@pytest.fixture
def openai(settings):
    with OpenAIFake() as fake:
        settings.GENERATION_ENGINE = "openai"
        settings.OPENAI_API_KEY = "sk-test"
        settings.OPENAI_BASE_URL = fake.base_url
        settings.OPENAI_TEXT_MODEL = "gpt-test-mini"
        settings.OPENAI_IMAGE_MODEL = "gpt-image-1"
        _build.cache_clear()
        yield fake
    _build.cache_clear()


def _generate(owner, *, enqueue: bool = True, retries: int = 0) -> Content:
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    content = content_request_generation(  # enqueued: the eager task runs on commit, here
        organization=owner.org,
        enqueue=enqueue,
        inp=GenerationInput(prompt="espresso tonic on a sunny terrace", platforms=["instagram"], brand=brand),
    )
    if not enqueue:
        # as a worker runs it: a retry runs again (eagerly here) instead of reaching the caller
        generate_content.apply(args=[str(content.pk)], retries=retries, throw=False)
    content.refresh_from_db()
    return content


def test_the_task_declares_its_queue_and_retry_policy():
    assert generate_content.queue == "generation"
    assert generate_content.max_retries == django_settings.GENERATION_MAX_RETRIES
    assert generate_content.retry_backoff == 2 and generate_content.retry_jitter is False
    assert generate_content.acks_late and generate_content.ignore_result


def test_a_retryable_engine_error_is_tried_again_and_the_generation_finishes(owner, openai):
    openai.chat_replies.append(EMPTY)  # the first answer is empty: retryable

    content = _generate(owner, enqueue=False)

    assert content.status == "review", content.status_reason
    assert len(openai.requests_to("/chat/completions")) == 2
    assert content.generation_attempts == 1  # the retry gave its claim back first: not counted as a crash


def test_a_permanent_engine_error_fails_the_content_at_once_without_reaching_the_caller(owner, openai):
    openai.chat_refusal = "I can't help with that."

    content = _generate(owner)

    assert content.status == "failed"
    assert content.status_reason.startswith("Generation failed: ")
    assert "refused" in content.status_reason
    assert len(openai.requests_to("/chat/completions")) == 1


def test_the_last_retry_fails_the_content_with_the_engines_reason(owner, openai):
    openai.chat_replies.append(EMPTY)
    content = _generate(owner, enqueue=False, retries=django_settings.GENERATION_MAX_RETRIES)  # the last try

    assert content.status == "failed"
    assert content.status_reason == "Generation failed: openai: the model returned an empty reply"
    assert len(openai.requests_to("/chat/completions")) == 1
