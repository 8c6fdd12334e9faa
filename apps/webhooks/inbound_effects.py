"""What a verified inbound webhook changes (run by the `process_inbound` task)."""

from __future__ import annotations

import logging

from .models import InboundWebhook

logger = logging.getLogger(__name__)


def _tiktok(payload: dict) -> None:
    from apps.profiles.models import SocialProfile

    if payload.get("event") == "authorization.removed" and payload.get("user_openid"):
        SocialProfile.objects.filter(platform="tiktok", external_id=str(payload["user_openid"])).update(
            connected=False, access_token_enc="", refresh_token_enc="", token_status="revoked", token_expires_at=None)


HANDLERS = {"tiktok": _tiktok}


def inbound_process(*, provider: str, event_id: str) -> None:
    record = InboundWebhook.objects.filter(provider=provider, event_id=event_id).first()
    if record is None:
        return
    handler = HANDLERS.get(provider)
    if handler is None:
        logger.info("%s webhook %s recorded (no effect handler for it yet)", provider, event_id)
        return
    handler(record.payload)
