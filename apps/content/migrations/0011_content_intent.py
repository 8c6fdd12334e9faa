"""What a content item is written for (issue 31): the intent, its confidence and its source.

Content made before this records what the one classifier reads in its brief now (or `set` when
its post settings name an intent); imported text (not generated) records nothing."""

from django.db import migrations, models


def record_intents(apps, schema_editor):
    # the classifier is a pure function over text (apps.platforms.intents): reading it here is
    # what the content service records for new content
    from apps.platforms.intents import classify_brief

    Content = apps.get_model("content", "Content")
    rows = Content.objects.only("pk", "prompt", "settings").order_by("pk")
    batch = []
    for content in rows.iterator(chunk_size=500):
        settings = content.settings if isinstance(content.settings, dict) else {}
        if "importedFor" in settings:
            continue
        asked = str(settings.get("intent") or "").strip().lower()
        if asked:
            content.intent, content.intent_confidence, content.intent_source = asked[:20], 1.0, "set"
        else:
            guess = classify_brief(content.prompt or "", str(settings.get("language") or "en"))
            content.intent = guess.intent if guess.confident else ""
            content.intent_confidence, content.intent_source = round(guess.confidence, 2), "detected"
        batch.append(content)
        if len(batch) >= 500:
            Content.objects.bulk_update(batch, ["intent", "intent_confidence", "intent_source"])
            batch = []
    if batch:
        Content.objects.bulk_update(batch, ["intent", "intent_confidence", "intent_source"])


class Migration(migrations.Migration):
    dependencies = [
        ("content", "0010_ai_disclosure"),
    ]

    operations = [
        migrations.AddField(
            model_name="content",
            name="intent",
            field=models.CharField(blank=True, default="", max_length=20),
        ),
        migrations.AddField(
            model_name="content",
            name="intent_confidence",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="content",
            name="intent_source",
            field=models.CharField(blank=True, default="", max_length=10),
        ),
        migrations.RunPython(record_intents, migrations.RunPython.noop),
    ]
