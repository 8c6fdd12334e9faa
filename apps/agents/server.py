"""Postforge's MCP server (issue 32, "agents that draft for a person"), built on the Model
Context Protocol's official Python SDK.

The tools translate MCP calls to the services both API families call (content creation and
review, the pre-flight check, analytics reports); the only rules of their own live in
`apps.agents.services`. Every call authenticates with an API key (stdio: the key the server was
started with; streamable HTTP: the request's `Authorization: Bearer` header) and runs scoped to
its organization and, for a brand-limited key, to its brands. Another organization's content is
"not found", as in the APIs.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from apps.accounts.auth import Actor, actor_from_api_key
from apps.core.errors import ApplicationError, NotFound
from apps.core.scoping import brands_limited

T = TypeVar("T")

INSTRUCTIONS = (
    "Postforge drafts social media posts. Content you generate waits for a person's review: "
    "you cannot publish or schedule it. Use propose_schedule to suggest a time; a person approves."
)

server: MCPServer[Any] = MCPServer(name="postforge", instructions=INSTRUCTIONS)

#: the key of a stdio server (`manage.py mcp`): one client, one key
_stdio_key: dict[str, str] = {}


def use_stdio_key(secret: str) -> None:
    _stdio_key["secret"] = secret


def _secret(ctx: Context[Any, Any]) -> str:
    headers = ctx.headers
    if headers is not None:
        scheme, _, token = (headers.get("authorization") or "").partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
        raise ToolError("AUTHENTICATION_FAILED: send 'Authorization: Bearer <API key>'.")
    if "secret" in _stdio_key:
        return _stdio_key["secret"]
    raise ToolError("AUTHENTICATION_FAILED: no API key.")


def _agent_name(ctx: Context[Any, Any]) -> str:
    params = ctx.session.client_params
    info = getattr(params, "client_info", None) or getattr(params, "clientInfo", None)
    name = getattr(info, "name", "") or ""
    version = getattr(info, "version", "") or ""
    return f"{name} {version}".strip() or "unknown agent"


async def _run(ctx: Context[Any, Any], work: Callable[[Actor], T]) -> T:
    """Authenticate the call's key, then run `work(actor)` (the ORM, in Django's sync thread)
    limited to the key's brands; a service's refusal becomes a tool error with its code."""
    secret = _secret(ctx)

    def call() -> T:
        try:
            actor = actor_from_api_key(secret)
            with brands_limited(actor.brand_ids or None):
                return work(actor)
        except ApplicationError as exc:
            raise ToolError(f"{exc.code}: {exc.message}") from exc

    return await sync_to_async(call, thread_sensitive=True)()


# --- reads and lookups ---------------------------------------------------------------------


def _content(actor: Actor, content_id: str) -> Any:
    from apps.content import selectors
    from apps.core import ids

    pk = ids.parse(content_id, "content")
    found = selectors.content_get(organization=actor.organization).filter(pk=pk).first() if pk else None
    if found is None:
        raise NotFound(f"No content {content_id}.")
    return found


def _present(content: Any) -> dict[str, Any]:
    from apps.content.v1.serializers import present_content

    out = present_content(content)
    out["review"] = {
        "createdVia": content.created_via or "api",
        "agent": content.agent_name or None,
        "proposedFor": content.proposed_for.isoformat() if content.proposed_for else None,
        "needsApproval": content.requires_approval,
    }
    return out


def _profiles(actor: Actor, profile_ids: list[str]) -> list[Any]:
    from apps.core import ids
    from apps.profiles.models import SocialProfile

    found = []
    for ref in profile_ids:
        pk = ids.parse(ref, "profile")
        profile = (
            SocialProfile.objects.for_organization(actor.organization).filter(pk=pk).first() if pk else None
        )
        if profile is None:
            raise NotFound(f"No profile {ref}.")
        found.append(profile)
    return found


# --- tools ---------------------------------------------------------------------------------


@server.tool()
async def generate_content(
    prompt: str,
    ctx: Context[Any, Any],
    platforms: list[str] | None = None,
    profile_ids: list[str] | None = None,
    brand_id: str | None = None,
) -> list[dict[str, Any]]:
    """Generate a post from a prompt: for `platforms` (e.g. ["linkedin", "x"]) of a brand, or
    one post per profile in `profile_ids`. It lands waiting for a person's review."""
    agent = _agent_name(ctx)

    def work(actor: Actor) -> list[dict[str, Any]]:
        from apps.brands.models import Brand
        from apps.core import ids

        from .services import agent_content_generate

        actor.require(role="editor", scope="content:write")
        brand = None
        if brand_id:
            pk = ids.parse(brand_id, "brand")
            brand = Brand.objects.for_organization(actor.organization).filter(pk=pk).first() if pk else None
            if brand is None:
                raise NotFound(f"No brand {brand_id}.")
        profiles = _profiles(actor, profile_ids or [])
        made = agent_content_generate(
            actor=actor,
            agent_name=agent,
            prompt=prompt,
            platforms=platforms or [p.platform for p in profiles],
            brand=brand,
            profiles=profiles,
        )
        return [_present(_content(actor, str(c.pk))) for c in made]

    return await _run(ctx, work)


@server.tool()
async def list_profiles(ctx: Context[Any, Any]) -> list[dict[str, Any]]:
    """The organization's connected social profiles (ids for generate_content and best_times)."""

    def work(actor: Actor) -> list[dict[str, Any]]:
        from apps.core import ids
        from apps.profiles.models import SocialProfile

        actor.require(scope="content:read")
        rows = SocialProfile.objects.for_organization(actor.organization).order_by("platform", "pk")[:200]
        return [
            {
                "id": ids.render(p.pk, "profile"),
                "platform": p.platform,
                "username": p.username,
                "brandId": ids.render(p.brand_id, "brand"),
            }
            for p in rows
        ]

    return await _run(ctx, work)


@server.tool()
async def list_content(
    ctx: Context[Any, Any], status: str | None = None, limit: int = 20, offset: int = 0
) -> dict[str, Any]:
    """The organization's content, newest first (status as in /v1: generated, approved, ...)."""

    def work(actor: Actor) -> dict[str, Any]:
        from apps.content import selectors, states

        actor.require(scope="content:read")
        qs = selectors.content_list(organization=actor.organization).order_by("-created_at")
        if status:
            qs = qs.filter(status=states.FROM_FAMILY_A.get(status, status))
        size = max(1, min(limit, 100))
        rows = list(qs[max(offset, 0) : max(offset, 0) + size + 1])
        page = selectors.content_page(rows[:size])
        return {"items": [_present(c) for c in page], "hasMore": len(rows) > size}

    return await _run(ctx, work)


@server.tool()
async def get_content(content_id: str, ctx: Context[Any, Any]) -> dict[str, Any]:
    """One content: status, each platform's text, media, publications and review state."""

    def work(actor: Actor) -> dict[str, Any]:
        actor.require(scope="content:read")
        return _present(_content(actor, content_id))

    return await _run(ctx, work)


@server.tool()
async def edit_variant(
    content_id: str,
    platform: str,
    ctx: Context[Any, Any],
    *,
    caption: str | None = None,
    hashtags: list[str] | None = None,
    first_comment: str | None = None,
    alt_text: str | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """Edit one platform's text of a content (as PUT /v1/content/{id})."""

    def work(actor: Actor) -> dict[str, Any]:
        from apps.content.services import content_update
        from apps.content.v1 import serializers as s
        from apps.core.errors import ValidationFailed

        actor.require(role="editor", scope="content:write")
        fields = {
            "caption": caption,
            "hashtags": hashtags,
            "firstComment": first_comment,
            "altText": alt_text,
            "title": title,
        }
        given = {k: v for k, v in fields.items() if v is not None}
        parsed = s.UpdateInput(data={"content": {platform: given}})
        if not parsed.is_valid():
            raise ValidationFailed("Invalid edit.", dict(parsed.errors))
        content = _content(actor, content_id)
        content_update(content=content, variants=parsed.validated_data["content"], status=None, actor=actor)
        return _present(_content(actor, content_id))

    return await _run(ctx, work)


@server.tool()
async def preflight_check(
    content_id: str,
    ctx: Context[Any, Any],
    scheduled_for: str | None = None,
    profile_ids: list[str] | None = None,
) -> dict[str, Any]:
    """Would each target profile (`profile_ids`, else the content's own profile or its brand's
    profiles on its platforms) accept this content now (or at `scheduled_for`, ISO 8601)?
    Problems are machine-readable: code, subject, the platform's rule and its source."""

    def work(actor: Actor) -> dict[str, Any]:
        from apps.publishing.services.preflight import content_preflight_run

        actor.require(scope="content:read")
        content = _content(actor, content_id)
        reports, at = content_preflight_run(
            organization=actor.organization,
            content=content,
            raw_profile_ids=profile_ids or ([str(content.profile_id)] if content.profile_id else None),
            scheduled_for=scheduled_for,
        )
        return {"checkedFor": at.isoformat(), "profiles": [dict(r) for r in reports]}

    return await _run(ctx, work)


@server.tool()
async def propose_schedule(content_id: str, scheduled_for: str, ctx: Context[Any, Any]) -> dict[str, Any]:
    """Propose a time (ISO 8601 with time zone) for a content. Nothing is scheduled: the
    content keeps waiting for a person, who approves and schedules it."""

    def work(actor: Actor) -> dict[str, Any]:
        from apps.core.errors import ValidationFailed

        from .services import content_propose_schedule

        actor.require(role="editor", scope="content:write")
        try:
            when = datetime.datetime.fromisoformat(scheduled_for.replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValidationFailed("scheduled_for must be ISO 8601.") from exc
        content = content_propose_schedule(content=_content(actor, content_id), when=when)
        return _present(_content(actor, str(content.pk)))

    return await _run(ctx, work)


@server.tool()
async def content_analytics(content_id: str, ctx: Context[Any, Any]) -> dict[str, Any]:
    """The latest metrics of a published content, summed over its publications."""

    def work(actor: Actor) -> dict[str, Any]:
        from apps.analytics.selectors import latest_for_content

        actor.require(scope="analytics")
        return dict(latest_for_content(_content(actor, content_id)))

    return await _run(ctx, work)


@server.tool()
async def best_times(profile_id: str, ctx: Context[Any, Any]) -> dict[str, Any]:
    """The best weekday and hour slots to post on a profile (from its own results when it has
    enough, else the platform's defaults; the answer says which)."""

    def work(actor: Actor) -> dict[str, Any]:
        from apps.analytics import reports

        actor.require(scope="analytics")
        return dict(reports.best_times(_profiles(actor, [profile_id])[0]))

    return await _run(ctx, work)
