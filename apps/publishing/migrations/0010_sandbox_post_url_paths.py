"""Sandbox post links were stored absolute (with the port of the day): keep their paths, the
answers make them absolute under the current PUBLIC_BASE_URL (apps.core.links.public_url)."""

import re

from django.db import migrations

ABSOLUTE = re.compile(r"^https?://[^/]+(?=/sandbox/)")


def to_paths(apps, schema_editor):
    Publication = apps.get_model("publishing", "Publication")
    rows = Publication.objects.filter(url__contains="/sandbox/", profile__sandbox=True).only("pk", "url")
    for pub in rows.iterator():
        path = ABSOLUTE.sub("", pub.url)
        if path != pub.url:
            Publication.objects.filter(pk=pub.pk).update(url=path)


class Migration(migrations.Migration):
    dependencies = [("publishing", "0009_oauth_redirect_origin_name")]

    operations = [migrations.RunPython(to_paths, migrations.RunPython.noop)]
