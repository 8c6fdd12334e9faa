"""What an AI agent may do through the MCP server (issue 32): the same content, pre-flight and
analytics services as both API families, plus the two rules that are the agent's own:

- whatever an agent creates records the key and the agent (`created_via="mcp"`) and waits for a
  person: `Content.requires_approval` is true for it, whatever the brand's settings, so no
  family can schedule or publish it before a person approves;
- an agent proposes a time (`content_propose_schedule`): recorded on the content, nothing is
  scheduled.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.accounts.auth import Actor
from apps.content import states
from apps.content.models import Content
from apps.content.services import GenerationInput, content_request_generation, generation_brand
from apps.core.errors import Conflict, InvalidSubject

AGENT_VIA = "mcp"


@transaction.atomic
def agent_content_generate(
    *,
    actor: Actor,
    agent_name: str,
    prompt: str,
    platforms: list[str],
    brand: Any = None,
    profiles: list[Any] | None = None,
) -> list[Content]:
    """Generate content as an agent: one content (for `platforms`), or one per profile, each
    marked with the key and agent that asked. The generation runs as for the API."""
    organization = actor.organization
    base = GenerationInput(
        prompt=prompt,
        platforms=platforms,
        brand=generation_brand(organization=organization, brand=brand),
    )
    inputs = (
        [
            GenerationInput(**{**base.__dict__, "platforms": [p.platform], "profile": p, "brand": p.brand})
            for p in profiles
        ]
        if profiles
        else [base]
    )
    created = []
    for inp in inputs:
        content = content_request_generation(organization=organization, actor=actor, inp=inp)
        Content.objects.filter(pk=content.pk).update(
            created_via=AGENT_VIA, agent_name=agent_name[:200], api_key=actor.api_key
        )
        content.created_via, content.agent_name, content.api_key = AGENT_VIA, agent_name[:200], actor.api_key
        created.append(content)
    return created


def content_propose_schedule(*, content: Content, when: datetime.datetime) -> Content:
    """Record the time an agent proposes for a content; it stays where it is (waiting for
    review): a person approves and schedules it."""
    if timezone.is_naive(when):
        raise InvalidSubject("Give the time with its time zone.", "scheduled_for", "Naive time.")
    if when <= timezone.now():
        raise InvalidSubject("The proposed time is in the past.", "scheduled_for", "In the past.")
    if content.status in (states.SCHEDULED, states.PUBLISHING, states.PUBLISHED):
        raise Conflict(f"The content is already {content.status}; a person decides its time now.")
    Content.objects.filter(pk=content.pk).update(proposed_for=when)
    content.proposed_for = when
    return content
