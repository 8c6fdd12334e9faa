from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("publishing", "0011_oauthstate_linkedin_account_type")]

    operations = [
        migrations.AddField(
            model_name="publication",
            name="visibility",
            field=models.CharField(blank=True, default="", max_length=40),
        ),
    ]
