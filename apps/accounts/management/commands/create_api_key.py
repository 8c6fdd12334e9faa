from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import SCOPES, Role
from apps.accounts.services import api_key_create, organization_get_or_create
from apps.core.errors import ValidationFailed


class Command(BaseCommand):
    help = "Create an API key (creating the organization if needed); prints the key as the last line."

    def add_arguments(self, parser):
        parser.add_argument("--org", required=True, help="Organization name")
        parser.add_argument("--role", default=Role.ADMIN, choices=Role.values)
        parser.add_argument("--name", default="API key")
        parser.add_argument("--scopes", default="", help=f"Comma-separated subset of: {', '.join(SCOPES)}")
        parser.add_argument(
            "--brands",
            default="",
            help="Comma-separated brand ids the key is limited to (default: every brand)",
        )

    def handle(self, *args, org, role, name, scopes, brands="", **options):
        organization = organization_get_or_create(name=org)
        try:
            issued = api_key_create(
                organization=organization,
                role=role,
                name=name,
                scopes=[s for s in scopes.split(",") if s],
                brand_ids=[b.strip() for b in brands.split(",") if b.strip()],
            )
        except ValidationFailed as exc:
            raise CommandError(f"{exc.message} {exc.details}") from None
        self.stderr.write(f"Organization: {organization.name} ({organization.pk}); role {role}. Shown once:")
        self.stdout.write(issued.secret)
