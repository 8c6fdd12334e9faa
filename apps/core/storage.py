"""URLs of stored files, the same for every app that shows one."""

from __future__ import annotations

from typing import cast

from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage
from django.db.models.fields.files import FieldFile
from django.utils.encoding import filepath_to_uri


def stored_url(name: str) -> str:
    """The default storage's URL of a stored name. On the local disk it is the base URL and the
    name as a URI, which `FileSystemStorage.url` gets by `urljoin`, parsing both for each of the
    two files of every item of a list page; a name urljoin would rewrite (a `.` or `..` or empty
    segment) still goes through it, as does any other storage (S3 signs or prefixes its own)."""
    if default_storage.__class__.url is FileSystemStorage.url:
        uri = filepath_to_uri(name).lstrip("/")
        # its own `url` is FileSystemStorage's, so it has FileSystemStorage's base URL
        base = cast(FileSystemStorage, default_storage).base_url
        if base.endswith("/") and "//" not in uri and "." not in uri.split("/")[0] and "/." not in uri:
            return base + uri
    return default_storage.url(name)


def absolute_url(request: object, file_field: FieldFile | str | None) -> str | None:
    """The public URL of a stored file (a file field, or the stored name a list page read as a
    column: the default storage's, as every file field here uses): as the storage gives it when
    absolute (S3), else under PUBLIC_BASE_URL. `request` is unused: never the request's Host
    header (a client chooses it)."""
    if not file_field:
        return None
    url = stored_url(file_field) if isinstance(file_field, str) else file_field.url
    if url.startswith("http://") or url.startswith("https://"):
        return url
    return f"{settings.PUBLIC_BASE_URL}{url}"
