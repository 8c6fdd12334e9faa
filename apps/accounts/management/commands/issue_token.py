from django.core.management.base import BaseCommand

from apps.accounts.auth import dev_token_issue
from apps.accounts.models import Role
from apps.accounts.services import organization_get_or_create


class Command(BaseCommand):
    help = "Print a Family B token signed by the development key the embedded default trusts."

    def add_arguments(self, parser):
        parser.add_argument("--org", required=True, help="Organization name")
        parser.add_argument("--role", default=Role.ADMIN, choices=Role.values)
        parser.add_argument("--subject", default="dev-user", help="The token's sub (user id)")
        parser.add_argument("--ttl", type=int, default=86400, help="Lifetime in seconds")

    def handle(self, *args, org, role, subject, ttl, **options):
        organization = organization_get_or_create(name=org)
        if not organization.external_id:
            organization.external_id = str(organization.pk)
            organization.save(update_fields=["external_id"])
        token = dev_token_issue(organization=organization, role=role, subject=subject, ttl=ttl)
        self.stderr.write(f"Organization: {organization.name}; role {role}; valid {ttl} s.")
        self.stdout.write(token)
