"""URLs of stored files, the same for every app that shows one."""

from __future__ import annotations

from django.conf import settings
from django.core.files.storage import default_storage
from django.db.models.fields.files import FieldFile


def absolute_url(request: object, file_field: FieldFile | str | None) -> str | None:
    """The public URL of a stored file (a file field, or the stored name a list page read as a
    column: the default storage's, as every file field here uses): as the storage gives it when
    absolute (S3), else under PUBLIC_BASE_URL. `request` is unused: never the request's Host
    header (a client chooses it)."""
    if not file_field:
        return None
    url = default_storage.url(file_field) if isinstance(file_field, str) else file_field.url
    if url.startswith("http://") or url.startswith("https://"):
        return url
    return f"{settings.PUBLIC_BASE_URL}{url}"
