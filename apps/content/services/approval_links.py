"""Links for an outside approver (issue 21): signed, expiring, revocable, one organization's
content only, dead as soon as the content's text or media change (a new link for the new text).

The token is the link's id signed with the project's secret (`django.core.signing`, its own
salt): it cannot be guessed or altered; expiry and revocation are the row's. A decision goes
through the same services as staff's (approve: `content_approve`, the `content.approved` event
saying who; request changes: `content_reject` with the comment) and into the content's history.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Sequence

from django.core import signing
from django.db import transaction
from django.utils import timezone

from apps.core.errors import InvalidSubject, NotFound, RuleViolation

from ..models import ApprovalLink, Content
from .history import actor_label, history_record
from .review import content_approve, content_reject

SALT = "postforge.approval-link"
MAX_DAYS = 30
MAX_ITEMS = 50


class LinkDead(NotFound):
    """A link that is unknown, expired, revoked or out of date (the content changed)."""


def fingerprint(contents: Sequence[Content]) -> str:
    """The texts and media an approver is shown, for every content of the link."""
    from apps.media.models import MediaAsset

    state = []
    for content in sorted(contents, key=lambda c: str(c.pk)):
        variants = [
            [v.platform, v.caption, v.hashtags, v.first_comment, v.alt_text, v.title]
            for v in content.variants.order_by("platform")
        ]
        media = list(
            MediaAsset.objects.filter(content=content, kind__in=("generated", "upload"))
            .order_by("position", "created_at")
            .values_list("pk", flat=True)
        )
        state.append([str(content.pk), variants, [str(m) for m in media]])
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def token_for(link: ApprovalLink) -> str:
    return signing.dumps(str(link.pk), salt=SALT)


@transaction.atomic
def approval_link_create(
    *, organization, contents: Sequence[Content], actor=None, days: int = 7, label: str = ""
) -> ApprovalLink:
    contents = list({c.pk: c for c in contents}.values())  # an item named twice is one item
    if not contents:
        raise InvalidSubject("Name at least one content item.", "contents", "At least one is needed.")
    if len(contents) > MAX_ITEMS:
        raise InvalidSubject("Too many items for one link.", "contents", f"At most {MAX_ITEMS}.")
    if any(c.organization_id != organization.pk for c in contents):
        raise NotFound("Content not found.")
    if not 1 <= days <= MAX_DAYS:
        raise InvalidSubject("The link lives 1 to 30 days.", "days", f"Between 1 and {MAX_DAYS}.")
    link = ApprovalLink.objects.create(
        organization=organization,
        label=label[:200],
        created_by=actor_label(actor),
        expires_at=timezone.now() + datetime.timedelta(days=days),
        fingerprint=fingerprint(contents),
    )
    link.contents.set(contents)
    for content in contents:
        history_record(
            content=content, actor=actor, action="approval_link", note=f"Approval link created ({days} days)."
        )
    return link


@transaction.atomic
def approval_link_revoke(*, link: ApprovalLink) -> ApprovalLink:
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at", "updated_at"])
    return link


def approval_link_open(token: str) -> ApprovalLink:
    """The live link behind `token`, or LinkDead saying why."""
    try:
        pk = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        raise LinkDead("This approval link is not valid.") from None
    link = ApprovalLink.objects.select_related("organization").filter(pk=pk).first()
    if link is None:
        raise LinkDead("This approval link is not valid.")
    if link.revoked_at is not None:
        raise LinkDead("This approval link was withdrawn.")
    if link.expires_at <= timezone.now():
        raise LinkDead("This approval link has expired.")
    if fingerprint(list(link.contents.all())) != link.fingerprint:
        raise LinkDead("The content changed since this link was made: ask for a new link.")
    return link


def approval_link_decide(
    *, token: str, content_id: str, decision: str, name: str = "", comment: str = ""
) -> Content:
    """The outside approver's decision on one item of the link: `approve` or `changes`."""
    link = approval_link_open(token)
    content = link.contents.filter(pk=content_id).first()
    if content is None:
        raise NotFound("This content is not part of the link.")
    who = f"{(name or '').strip()[:80] or 'Outside approver'} (approval link)"
    comment = (comment or "").strip()[:2000]
    if decision == "approve":
        content = content_approve(content=content, actor=who)
        if comment:
            history_record(content=content, actor=who, action="comment", note=comment)
        return content
    if decision == "changes":
        if not comment:
            raise InvalidSubject("Say what should change.", "comment", "A comment is needed.")
        return content_reject(content=content, reason=f"Changes requested: {comment}", actor=who)
    raise RuleViolation("Unknown decision.", problems={"decision": "approve or changes"})
