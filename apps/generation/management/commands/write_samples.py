"""Write docs/samples.md: 12 varied briefs x 9 platforms through the generation pipeline, for a person to read."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.generation.samples import samples_markdown


class Command(BaseCommand):
    help = "Write sample generated posts (12 briefs x 9 platforms, through the pipeline) to docs/samples.md"

    def add_arguments(self, parser):
        parser.add_argument("--output", default=str(Path(settings.BASE_DIR) / "docs" / "samples.md"))

    def handle(self, *args, output, **options):
        path = Path(output)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(samples_markdown(), encoding="utf-8")
        self.stdout.write(f"wrote {path}")
