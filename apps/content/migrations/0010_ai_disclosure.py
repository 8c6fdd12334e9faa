"""What of a content item an AI made (issue 32), computed for the content that exists: text an
engine wrote (generated, not imported from a CSV) and media a model made."""

from django.db import migrations, models


def backfill(apps, schema_editor):
    Content = apps.get_model("content", "Content")
    MediaAsset = apps.get_model("media", "MediaAsset")
    text_ids = set(
        Content.objects.filter(generated_at__isnull=False)
        .exclude(settings__has_key="importedFor")
        .values_list("pk", flat=True)
    )
    media_ids = set(
        MediaAsset.objects.filter(kind="generated", content__isnull=False).values_list(
            "content_id", flat=True
        )
    )
    for value, pks in (
        ("both", text_ids & media_ids),
        ("text", text_ids - media_ids),
        ("media", media_ids - text_ids),
    ):
        if pks:
            Content.objects.filter(pk__in=pks).update(ai_disclosure=value)


class Migration(migrations.Migration):
    dependencies = [
        ("content", "0009_agent_provenance"),
        ("media", "0005_mediaasset_ratio_per_platform"),
    ]

    operations = [
        migrations.AddField(
            model_name="content",
            name="ai_disclosure",
            field=models.CharField(
                choices=[
                    ("none", "Nothing AI-generated"),
                    ("text", "AI-generated text"),
                    ("media", "AI-generated media"),
                    ("both", "AI-generated text and media"),
                ],
                default="none",
                max_length=5,
            ),
        ),
        migrations.AddField(
            model_name="content",
            name="ai_disclosure_overridden",
            field=models.BooleanField(default=False),
        ),
        migrations.AddConstraint(
            model_name="content",
            constraint=models.CheckConstraint(
                condition=models.Q(("ai_disclosure__in", ["none", "text", "media", "both"])),
                name="content_ai_disclosure_valid",
            ),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
