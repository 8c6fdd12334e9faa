import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import ApiKey, Membership, Role
from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.services import brand_ensure_default
from apps.profiles.models import SocialProfile


class Command(BaseCommand):
    help = "Seed a demo organization: brand, sandbox profile, admin API key, staff user. Safe to rerun."

    def add_arguments(self, parser):
        parser.add_argument("--org", default="Demo")
        parser.add_argument("--admin-user", default="admin")
        parser.add_argument("--admin-password", default="postforge")
        parser.add_argument(
            "--key-file",
            default="",
            help="The demo key printed last time (make run's var/demo-key.txt): printed again while it "
            "is still an active key of the demo organization, instead of issuing a new one.",
        )

    @transaction.atomic
    def handle(self, *args, org, admin_user, admin_password, key_file="", **options):
        organization = organization_get_or_create(name=org)
        brand = brand_ensure_default(organization=organization)
        if not brand.voice:
            brand.voice = "warm, curious and clear"
            brand.primary_color, brand.secondary_color = "#1E66F5", "#F5A97F"
            brand.hashtags = ["#postforge"]
            brand.save()
        SocialProfile.objects.get_or_create(
            organization=organization,
            platform="instagram",
            external_id="sandbox-demo",
            defaults={
                "brand": brand,
                "username": "demo.sandbox",
                "display_name": "Demo (sandbox)",
                "connected_at": timezone.now(),
                "follower_count": 1000,
                "sandbox": True,
                "settings": {"timezone": "UTC", "postingTimes": ["09:00", "12:30", "18:00"]},
            },
        )
        User = get_user_model()
        user, created = User.objects.get_or_create(
            username=admin_user,
            defaults={"is_staff": True, "is_superuser": True, "email": "admin@example.com"},
        )
        if created:
            user.set_password(admin_password)
            user.save()
        Membership.objects.get_or_create(organization=organization, user=user, defaults={"role": Role.OWNER})
        secret = _still_active(key_file, organization)
        if not secret:
            secret = api_key_create(
                organization=organization, role=Role.ADMIN, name="demo", created_by=user
            ).secret
        self.stderr.write(
            f"Demo organization '{organization.name}', brand '{brand.name}', staff login {admin_user}"
            + (f" / {admin_password}" if created else " (existing password)")
        )
        self.stdout.write(secret)


def _still_active(key_file: str, organization) -> str:
    """The key in `key_file` when it is an active demo key of `organization` (a rerun of
    `make run` reuses it rather than leaving one more key behind), else ""."""
    if not key_file or not os.path.exists(key_file):
        return ""
    with open(key_file, encoding="utf-8") as fh:
        secret = fh.read().strip()
    if not secret.startswith(ApiKey.PREFIX):
        return ""
    lookup = secret[len(ApiKey.PREFIX) : len(ApiKey.PREFIX) + 12]
    active = ApiKey.objects.filter(
        organization=organization,
        name="demo",
        lookup=lookup,
        hashed=ApiKey.hash_secret(secret),
        revoked_at__isnull=True,
    ).exists()
    return secret if active else ""
