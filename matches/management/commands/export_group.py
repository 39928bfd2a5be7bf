"""`manage.py export_group LINK [--output FILE]`: a group's JSON archive (format: matches.services.archive)
to stdout, or written beside FILE and renamed into place so it is never half-written."""

from __future__ import annotations

import re
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.services.archive import dumps, export_group
from matches.management.commands.backup import write_into_place
from matches.models import Group
from matches.models.tokens import TOKEN_PATTERN

GROUP_LINK = re.compile(rf"(?:^|/)g/({TOKEN_PATTERN})(?:/|$)")


def find_group(link: str) -> Group:
    """The group whose member link (address, /g/<token>/ path, or bare token) is `link`; else CommandError."""
    link = link.strip()
    found = GROUP_LINK.search(link.split("?")[0].split("#")[0])
    token = found[1] if found else link
    group = Group.reached_by("token", token)
    if group is None:
        raise CommandError(
            f"No group has the link {link!r}: paste the group's member link (/g/<token>/) or its token, "
            "as the group's page shows it now (new links stop the old ones)."
        )
    return group


class Command(BaseCommand):
    help = (
        "Write a group's JSON archive (every player, match and hand; no links) to stdout or --output FILE. "
        "`manage.py import_group FILE` brings it into another server."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("link", help="The group's member link, its path /g/<token>/, or its token.")
        parser.add_argument("--output", "-o", type=Path, help="File to write (replaced if it exists).")

    def handle(self, *args, link: str, output: Path | None, **options) -> None:
        group = find_group(link)
        try:
            data = export_group(group)
        except Group.DoesNotExist:
            raise CommandError("The group was deleted while it was being read.") from None
        text = dumps(data)
        if output is None:
            self.stdout.write(text, ending="")
            return
        write_into_place(output, lambda partial: partial.write_text(text, encoding="utf-8"))
        self.stdout.write(
            f"Wrote the group {group.name or group.pk!s} ({len(data['players'])} players, "
            f"{len(data['sittings'])} matches) to {output}."
        )
