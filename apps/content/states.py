"""The content status machine (design section 5). Only the drawn transitions exist.

    draft -> pending -> generating -> review -> approved -> scheduled -> publishing -> published
                            |            |--> rejected -> (edit) -> draft
                            v            v
                          failed <----- (any step after pending may fail; regenerate -> pending)
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
    # staff retry a failed publication (publishing.services.publication_retry): back on schedule
    "retry_publish": (frozenset({FAILED}), SCHEDULED),
}

#: actions a client may ask for (the others are the pipeline's own)
CLIENT_ACTIONS = ("approve", "reject", "edit", "regenerate", "schedule", "unschedule", "publish", "edit_image")

#: Family A says `generated` where Family B says `reviewing` (and the model says `review`)
FAMILY_A_WORDS = {REVIEW: "generated"}
FAMILY_B_WORDS = {REVIEW: "reviewing"}
FROM_FAMILY_A = {v: k for k, v in FAMILY_A_WORDS.items()}
FROM_FAMILY_B = {v: k for k, v in FAMILY_B_WORDS.items()}


def word_a(status: str) -> str:
    return FAMILY_A_WORDS.get(status, status)


def word_b(status: str) -> str:
    return FAMILY_B_WORDS.get(status, status)


def can(action: str, status: str) -> bool:
    if action == "edit_image":
        return status == REVIEW
    sources, _ = TRANSITIONS[action]
    return status in sources


def allowed_actions(status: str) -> list[str]:
    return [a for a in CLIENT_ACTIONS if can(a, status)]
