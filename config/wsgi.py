import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

from apps.core.secrets_policy import require  # noqa: E402

require()  # outside development, no public SECRET_KEY and no key derived from it
