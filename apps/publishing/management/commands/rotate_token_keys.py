"""Re-encrypt every stored OAuth token with the newest key of TOKEN_ENCRYPTION_KEYS."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from apps.profiles.models import SocialProfile
from apps.publishing import crypto


class Command(BaseCommand):
    help = (
        "Re-encrypt every profile's OAuth tokens with the newest TOKEN_ENCRYPTION_KEYS key. "
        "Prepend the new key, run this, then drop the old key."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=200)

    def handle(self, *args, batch_size: int, **options):
        rotated = 0
        pks = list(SocialProfile.objects.order_by("pk").values_list("pk", flat=True))
        for start in range(0, len(pks), batch_size):
            with transaction.atomic():
                rows = SocialProfile.objects.select_for_update().filter(
                    pk__in=pks[start : start + batch_size]
                )
                for profile in rows:
                    if not (profile.access_token_enc or profile.refresh_token_enc):
                        continue
                    profile.access_token_enc = crypto.rotate(profile.access_token_enc)
                    profile.refresh_token_enc = crypto.rotate(profile.refresh_token_enc)
                    profile.save(update_fields=["access_token_enc", "refresh_token_enc"])
                    rotated += 1
        self.stdout.write(f"Re-encrypted the tokens of {rotated} profile(s) with the newest key.")
