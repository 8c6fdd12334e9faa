"""Static files storage: compressed and fingerprinted (WhiteNoise's manifest storage).

`make run`, the Dockerfile and `serve` run `collectstatic`, which writes the manifest. A
process started without it (a test, `runserver` on a fresh clone) falls back to the plain
names, which WhiteNoise serves from the apps' own folders (WHITENOISE_USE_FINDERS), instead
of failing every page with "Missing staticfiles manifest entry".
"""

from __future__ import annotations

from typing import cast

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    manifest_strict = False

    def stored_name(self, name: str) -> str:
        if not self.hashed_files:  # no manifest: collectstatic never ran here
            return name
        # whitenoise is untyped; its base is Django's ManifestStaticFilesStorage (a str)
        return cast(str, super().stored_name(name))
