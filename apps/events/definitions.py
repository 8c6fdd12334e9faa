"""Every message /ws/events/ sends or accepts, and its payload (see apps/events/catalog.py).

Services record these types (`event_record` refuses a type not defined here); the websocket
consumer renders them into the caller's family; the AsyncAPI documents are generated from
them. Adding a field to an event means adding it here: the suite validates every message it
sends against these schemas.
"""

from __future__ import annotations

from .schema import (
    CLIENT,
    CONTROL,
    LIVE,
    array,
    boolean,
    datetime_,
    define,
    id_,
    integer,
    number,
    obj,
    status,
    string,
)

PLATFORM = string(
    "The platform: instagram, facebook, tiktok, youtube, linkedin, x, threads, pinterest, bluesky."
)

# --- content ----------------------------------------------------------------------------------

#: what every content event carries (apps.content.machine.event_data) and what some add
CONTENT = obj(
    {
        "contentId": id_("content"),
        "status": status("content", "The content's status now, as GET content answers it."),
        "platforms": array(string(), "The content's platforms."),
    },
    {
        "aiGenerated": string(
            "What of the content an AI made: none, text, media or both (computed when its generation"
            " finishes, unless a person set it). Absent from events recorded before it existed.",
            enum=["none", "text", "media", "both"],
        ),
        "batchId": id_("batch", "The generation batch the content belongs to."),
        "previousStatus": status("content", "The status before this change."),
        "reason": string("Why it failed or was rejected."),
        "approvedBy": string("Who approved it (a user, an API key's name, an approval link).", nullable=True),
        "regenerated": boolean("A regeneration was asked for."),
        "approvalWithdrawn": boolean("The approved text was edited: it needs approval again."),
        "imageEdited": boolean("The image was edited with a prompt."),
        "imageRestored": boolean("An image edit was undone."),
        "mediaId": id_("media", "The edited image."),
        "design": string(
            "A new design: the pictures were drawn again in this layout.", enum=["panel", "light", "type"]
        ),
        "scheduledFor": datetime_("When the scheduled posts go out."),
        "profileIds": array(id_("profile"), "The profiles it is scheduled on."),
    },
)

for name, summary in (
    ("content.created", "A content item was created (its generation is queued)."),
    ("content.generated", "Generation finished: the content is ready for review."),
    ("content.failed", "Generation or publishing failed (`reason` says why)."),
    ("content.approved", "The content was approved (`approvedBy` says by whom)."),
    ("content.rejected", "The content was rejected (`reason`)."),
    ("content.updated", "The content was edited, regenerated, unscheduled or moved to another brand."),
    ("content.deleted", "The content was deleted."),
    ("content.scheduled", "The content was scheduled (or rescheduled) on its profiles."),
    ("content.publishing", "Publishing started."),
    ("content.published", "Every publication of the content is out."),
):
    define(name, summary, CONTENT)

define(
    "content.generation.progress",
    "Live generation progress (not stored, not sent to webhooks).",
    obj(
        {
            "contentId": id_("content"),
            "stage": string(
                "settings, text, media (with progress inside the render), adapt, done",
                enum=["settings", "text", "media", "adapt", "done"],
            ),
            "progress": integer("Percent done.", minimum=0, maximum=100),
        },
        {"batchId": id_("batch")},
    ),
    source=LIVE,
)

BATCH = obj(
    {
        "batchId": id_("batch"),
        "status": status("batch"),
        "total": integer("Items in the batch.", minimum=0),
        "completed": integer("Items generated.", minimum=0),
        "failed": integer("Items that failed.", minimum=0),
        "progress": integer("Overall percent done.", minimum=0, maximum=100),
        "items": array(
            obj(
                {
                    "contentId": id_("content"),
                    "status": status("content"),
                    "progress": integer(minimum=0, maximum=100),
                }
            )
        ),
    }
)
define("batch.progress", "A batch item started or finished.", BATCH)
define("batch.completed", "Every item of the batch finished (generated or failed).", BATCH)

# --- publishing -------------------------------------------------------------------------------

define(
    "publication.updated",
    "A publication (one post on one profile) ended: published or failed.",
    obj(
        {
            "publicationId": id_("publication"),
            "contentId": id_("content"),
            "profileId": id_("profile"),
            "platform": PLATFORM,
            "status": status("publication"),
            "externalId": string("The platform's post id.", nullable=True),
            "url": string("The post's address.", nullable=True),
            "lastError": string(nullable=True),
            "firstCommentError": string("Why the first comment is missing.", nullable=True),
            "visibility": string(
                "Who can see the post on the platform, as it reports it (YouTube's privacyStatus read"
                " back after the upload, TikTok's privacy level).",
                nullable=True,
            ),
            "sandbox": boolean(),
        }
    ),
)
define(
    "publication.failed",
    "A publication failed.",
    obj(
        {
            "publicationId": id_("publication"),
            "contentId": id_("content"),
            "profileId": id_("profile"),
            "platform": PLATFORM,
            "error": string(nullable=True),
            "errorCode": string(nullable=True),
            "sandbox": boolean(),
        }
    ),
)

# --- profiles ---------------------------------------------------------------------------------

define(
    "profile.connected",
    "A social profile was connected (or reconnected).",
    obj(
        {
            "profileId": id_("profile"),
            "platform": PLATFORM,
            "username": string(),
            "sandbox": boolean(),
            "reconnected": boolean(),
        }
    ),
)
define("profile.updated", "A profile's settings or brand changed.", obj({"profileId": id_("profile")}))
define(
    "profile.disconnected",
    "A profile was removed, or the account revoked the app's access (`reason`).",
    obj({"profileId": id_("profile"), "platform": PLATFORM}, {"reason": string(enum=["access_revoked"])}),
)
define(
    "profile.token_expired",
    "A profile's token expired or was revoked: reconnect it.",
    obj(
        {
            "profileId": id_("profile"),
            "platform": PLATFORM,
            "status": status("token"),
            "reason": string(),
        }
    ),
)
define(
    "profile.token_expiring",
    "A token nothing can renew expires soon: reconnect before then.",
    obj(
        {
            "profileId": id_("profile"),
            "platform": PLATFORM,
            "expiresAt": datetime_(),
            "daysLeft": number(),
            "reason": string(),
        }
    ),
)

# --- brands, webhooks -------------------------------------------------------------------------

define("brand.created", "A brand was created.", obj({"brandId": id_("brand")}))
define(
    "webhook.disabled",
    "A webhook endpoint failed for days and was disabled.",
    obj({"webhookId": id_("webhook"), "url": string(), "reason": string()}),
)

# --- the socket's own replies -----------------------------------------------------------------

MESSAGE = obj({"message": string()})
define(
    "connection.ready",
    "The socket is authenticated and joined its organization's stream.",
    obj({}, {"organizationId": id_("organization"), "staff": boolean("A staff session (the admin).")}),
    source=CONTROL,
)
define(
    "subscribed",
    "From now on only this object's messages arrive.",
    obj({}, {"contentId": id_("content"), "batchId": id_("batch")}),
    source=CONTROL,
)
define("unsubscribed", "Back on the organization's stream.", obj({}), source=CONTROL)
define("pong", "The answer to `ping`.", obj({}), source=CONTROL)
define("error", "A frame could not be understood; the socket stays open.", MESSAGE, source=CONTROL)
define("credential.revoked", "The API key was revoked; the socket closes (4401).", MESSAGE, source=CONTROL)
define("credential.expired", "The token expired; the socket closes (4401).", MESSAGE, source=CONTROL)

# --- what a client sends ----------------------------------------------------------------------

define(
    "subscribe",
    "Receive only one content item's or batch's messages (give one of the two ids, either form).",
    obj(
        {"action": string(const="subscribe")},
        {"contentId": string("A content id (cnt_... or a UUID)."), "batchId": string("A batch id.")},
    ),
    source=CLIENT,
)
define(
    "unsubscribe",
    "Back to the organization's stream.",
    obj({"action": string(const="unsubscribe")}),
    source=CLIENT,
)
define("ping", "Answered `pong`.", obj({"action": string(const="ping")}), source=CLIENT)
