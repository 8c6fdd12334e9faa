"""The "Reviewer" staff group: reviews, edits, approves, rejects, regenerates, schedules and
publishes content in the admin; sees nothing of API keys, organizations, memberships or
webhook endpoints (issue 8)."""

from django.db import migrations

REVIEWER_PERMISSIONS = [
    ("content", "view_content"),
    ("content", "change_content"),
    ("content", "view_reviewitem"),
    ("content", "change_reviewitem"),
    ("content", "view_variant"),
    ("content", "change_variant"),
    ("publishing", "view_publication"),
    ("publishing", "change_publication"),
    ("publishing", "view_sandboxpost"),
    ("media", "view_mediaasset"),
    ("media", "change_mediaasset"),
    ("brands", "view_brand"),
    ("profiles", "view_socialprofile"),
]


def create_reviewer_group(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    # permissions are normally created after all migrations ran; make them exist now
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="Reviewer")
    for app_label, codename in REVIEWER_PERMISSIONS:
        group.permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))


def remove_reviewer_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="Reviewer").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("content", "0003_reviewitem"),
        ("publishing", "0004_publication_claim"),
        ("media", "0003_mediaasset_content_mediaasset_position"),
        ("brands", "0003_org_created_indexes"),
        ("profiles", "0002_org_created_indexes"),
    ]

    operations = [migrations.RunPython(create_reviewer_group, remove_reviewer_group)]
