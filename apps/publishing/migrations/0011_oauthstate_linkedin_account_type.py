from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("publishing", "0010_sandbox_post_url_paths"),
    ]

    operations = [
        migrations.AddField(
            model_name="oauthstate",
            name="account_type",
            field=models.CharField(blank=True, default="", max_length=20),
        ),
    ]
