"""ReDoc without its CDN logo: the sidecar's bundle draws an "API docs by Redocly" image from
https://cdn.redoc.ly on every docs page. This static files finder serves the same bundle with
that image dropped (the link text stays), at `postforge/redoc/bundles/redoc.standalone.js`
(drf-spectacular's REDOC_DIST points there), so the docs fetch nothing from another host."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.files.storage import FileSystemStorage

SOURCE_MAP = re.compile(r"^//# sourceMappingURL=\S+\s*$", re.M)
BUNDLE = "postforge/redoc/bundles/redoc.standalone.js"
LOGO_URL = "https://cdn.redoc.ly/redoc/logo-mini.svg"
LOGO_IMAGE = 'e?n.createElement("img",{alt:"redocly logo",onError:()=>t(!1),src:"' + LOGO_URL + '"}):null'


def patched_bundle(source: str) -> str:
    """The bundle without the CDN logo (the element, or at least its address) and without its
    source map reference (the map stays with the sidecar's copy)."""
    source = SOURCE_MAP.sub("", source)
    return source.replace(LOGO_IMAGE, "null").replace(LOGO_URL, "")


class RedocFinder(finders.BaseFinder):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.root = Path(settings.VAR_DIR) / "generated-static"
        self.storage = FileSystemStorage(location=str(self.root))

    def _ensure(self) -> Path:
        target = self.root / BUNDLE
        source = finders.find("drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js")
        if isinstance(source, list):
            source = source[0] if source else None
        if source is None:
            raise FileNotFoundError("drf-spectacular-sidecar's ReDoc bundle")
        if not target.exists() or target.stat().st_mtime < Path(source).stat().st_mtime:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(".tmp")
            tmp.write_text(patched_bundle(Path(source).read_text(encoding="utf-8")), encoding="utf-8")
            tmp.replace(target)
        return target

    def check(self, **kwargs: Any) -> list:
        return []

    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> Any:
        find_all = find_all or kwargs.get("all", False)
        if path != BUNDLE:
            return [] if find_all else None
        found = str(self._ensure())
        return [found] if find_all else found

    def list(self, ignore_patterns: Any) -> Any:
        self._ensure()
        yield BUNDLE, self.storage
