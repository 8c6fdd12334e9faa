from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import Membership, Role
from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.services import brand_ensure_default
from apps.profiles.models import SocialProfile


class Command(BaseCommand):
    help = "Seed a demo organization: brand, sandbox profile, admin API key, staff user. Safe to rerun."

    def add_arguments(self, parser):
        parser.add_argument("--org", default="Demo")
        parser.add_argument("--admin-user", default="admin")
        parser.add_argument("--admin-password", default="postforge")

    @transaction.atomic
    def handle(self, *args, org, admin_user, admin_password, **options):
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
        issued = api_key_create(organization=organization, role=Role.ADMIN, name="demo", created_by=user)
        self.stderr.write(
            f"Demo organization '{organization.name}', brand '{brand.name}', staff login {admin_user}"
            + (f" / {admin_password}" if created else " (existing password)")
        )
        self.stdout.write(issued.secret)
