from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("publishing", "0010_sandbox_post_url_paths")]

    operations = [
        migrations.AddField(
            model_name="publication",
            name="visibility",
            field=models.CharField(blank=True, default="", max_length=40),
        ),
    ]
