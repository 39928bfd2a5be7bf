"""`manage.py import_group FILE` ("-": stdin): a new group from an `export_group` archive; prints its
link path. The file is checked first: a refused file changes nothing and the error says what to fix."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.domain.capacity import ARCHIVE_BYTES
from matches.services.archive import ArchiveError, import_group, read_archive


class Command(BaseCommand):
    help = "Create a new group (with new links) from a group's JSON archive; prints its link path /g/<token>/."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "file", help='The archive (.json) that export_group or the group page wrote; "-" for stdin.'
        )

    def handle(self, *args, file: str, **options) -> None:
        try:
            if file == "-":
                raw = sys.stdin.buffer.read(ARCHIVE_BYTES + 1)
            else:
                with Path(file).open("rb") as opened:
                    raw = opened.read(ARCHIVE_BYTES + 1)  # one byte more than an archive may hold: refused
        except OSError as error:
            raise CommandError(f"Could not read {file}: {error.strerror or error}.") from None
        try:
            group = import_group(read_archive(raw))
        except ArchiveError as refusal:
            raise CommandError(f"{file}: {refusal.message} Nothing was imported.") from None
        self.stdout.write(group.get_absolute_url())
