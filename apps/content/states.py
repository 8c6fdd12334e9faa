"""The content status machine (design section 5). Only the drawn transitions exist.

    draft -> pending -> generating -> review -> approved -> scheduled -> publishing -> published
                            |            |--> rejected -> (edit) -> draft
                            v            v
                          failed <----- (any step after pending may fail; regenerate -> pending)
                                        (published -> failed: a platform took back the only post, `unpublish`)

A brand with `require_approval` needs `approved` before schedule or publish (`review` content
of such a brand has neither among its allowed actions), and editing the text of its approved
content withdraws the approval (approved -> review, `withdraw_approval`).
"""

from __future__ import annotations

DRAFT, PENDING, GENERATING, REVIEW = "draft", "pending", "generating", "review"
APPROVED, REJECTED, SCHEDULED = "approved", "rejected", "scheduled"
PUBLISHING, PUBLISHED, FAILED = "publishing", "published", "failed"

STATUSES = (DRAFT, PENDING, GENERATING, REVIEW, APPROVED, REJECTED, SCHEDULED, PUBLISHING, PUBLISHED, FAILED)

#: action -> (statuses it may start from, status it leads to)
TRANSITIONS: dict[str, tuple[frozenset[str], str]] = {
    "submit": (frozenset({DRAFT}), PENDING),
    "start": (frozenset({PENDING}), GENERATING),
    "complete": (frozenset({GENERATING}), REVIEW),
    "fail": (frozenset({PENDING, GENERATING, REVIEW, APPROVED, SCHEDULED, PUBLISHING}), FAILED),
    "approve": (frozenset({REVIEW}), APPROVED),
    "reject": (frozenset({REVIEW}), REJECTED),
    "edit": (frozenset({REVIEW, APPROVED, REJECTED, FAILED, DRAFT}), DRAFT),
    "regenerate": (frozenset({DRAFT, REVIEW, REJECTED, FAILED}), PENDING),
    # `review` may be scheduled or published only when the brand does not require approval
    "schedule": (frozenset({REVIEW, APPROVED, SCHEDULED}), SCHEDULED),
    "unschedule": (frozenset({SCHEDULED}), APPROVED),
    "publish": (frozenset({REVIEW, APPROVED, SCHEDULED}), PUBLISHING),
    "published": (frozenset({PUBLISHING}), PUBLISHED),
    # a platform reports, after moderation, that a post it had accepted did not go out
    # (TikTok's post.publish.failed) and no other publication of the content is published
    "unpublish": (frozenset({PUBLISHED}), FAILED),
    # staff retry a failed publication (publishing.services.publication_retry): back on schedule
    "retry_publish": (frozenset({FAILED}), SCHEDULED),
    # the approved text was edited and the brand requires approval (services.content_update):
    # back to review, to be approved again
    "withdraw_approval": (frozenset({APPROVED}), REVIEW),
}

#: actions a client may ask for (the others are the pipeline's own)
CLIENT_ACTIONS = (
    "approve",
    "reject",
    "edit",
    "regenerate",
    "schedule",
    "unschedule",
    "publish",
    "edit_image",
)

#: actions that lead to publishing: content in `review` of a brand that requires approval
#: may not take them (it needs `approve` first)
PUBLISHING_ACTIONS = frozenset({"schedule", "publish"})

#: Family A says `generated` where Family B says `reviewing` (and the model says `review`)
FAMILY_A_WORDS = {REVIEW: "generated"}
FAMILY_B_WORDS = {REVIEW: "reviewing"}
FROM_FAMILY_A = {v: k for k, v in FAMILY_A_WORDS.items()}
FROM_FAMILY_B = {v: k for k, v in FAMILY_B_WORDS.items()}


def word_a(status: str) -> str:
    return FAMILY_A_WORDS.get(status, status)


def word_b(status: str) -> str:
    return FAMILY_B_WORDS.get(status, status)


#: every status in each family's words (the response schemas' enums)
STATUS_WORDS_A = tuple(word_a(s) for s in STATUSES)
STATUS_WORDS_B = tuple(word_b(s) for s in STATUSES)


def can(action: str, status: str, *, require_approval: bool = False) -> bool:
    """May `action` start from `status`? `require_approval`: the content's brand requires
    approval, so `review` content can be neither scheduled nor published."""
    if action == "edit_image":
        return status == REVIEW
    if require_approval and status == REVIEW and action in PUBLISHING_ACTIONS:
        return False
    sources, _ = TRANSITIONS[action]
    return status in sources


def allowed_actions(status: str, *, require_approval: bool = False) -> list[str]:
    return [a for a in CLIENT_ACTIONS if can(a, status, require_approval=require_approval)]
