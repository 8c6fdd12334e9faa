"""The admin index shows whether Celery workers are alive: see apps.core.admin_site (the site's
own ``index``; nothing is patched here)."""
