"""`manage.py forget_old_sittings [--days N] [--dry-run]`: delete sittings whose `changed_at` is over
N days old (default settings.RETENTION_DAYS, env RETENTION_DAYS, 365; 0 deletes nothing), with
their seats, hands and seatless players (matches.services.retention)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Count, QuerySet

from matches.models import Sitting
from matches.services.retention import forget_groups, forget_sittings, untouched_for, untouched_groups


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


MAX_DAYS = 700_000  # about 1,900 years; more reaches back before the first year of the calendar


class Command(BaseCommand):
    help = (
        "Delete the sittings whose last change (Sitting.changed_at) is more than N days old, with their "
        "seats and hands and the players left with no seat. N is --days, else settings.RETENTION_DAYS "
        "(RETENTION_DAYS in the environment, default 365); 0 keeps every sitting."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="Age in days of the last change beyond which a sitting goes (default: RETENTION_DAYS; 0: none).",
        )
        parser.add_argument("--dry-run", action="store_true", help="List what would go; delete nothing.")

    def handle(self, *args, days: int | None, dry_run: bool, **options) -> None:
        days = settings.RETENTION_DAYS if days is None else days
        if days < 0:
            raise CommandError(f"--days must be 0 (keep everything) or more, not {days}.")
        if days > MAX_DAYS:
            raise CommandError(f"--days must be at most {MAX_DAYS:,} (about 1,900 years), not {days:,}.")
        if days == 0:
            self.stdout.write("Retention is off (0 days): no sitting was forgotten.")
            return
        stale = untouched_for(days)
        if dry_run:
            self.list_stale(stale, days)
            return
        sittings, hands = forget_sittings(stale)
        groups = forget_groups(untouched_groups(days))
        self.stdout.write(
            f"Forgot {plural(sittings, 'sitting')} untouched for {plural(days, 'day')} ({plural(hands, 'hand')})."
            + (f" Forgot {plural(groups, 'group')} left with no match." if groups else "")
        )

    def list_stale(self, stale: QuerySet[Sitting], days: int) -> None:
        """One line per sitting that would go (never its links: they open the table), then the total."""
        hands = 0
        rows = stale.annotate(hand_count=Count("hands")).order_by("changed_at")
        for sitting in rows:
            hands += sitting.hand_count
            self.stdout.write(
                f"  #{sitting.pk} {sitting.game}, started {sitting.started_at:%Y-%m-%d}, "
                f"last changed {sitting.changed_at:%Y-%m-%d}, {plural(sitting.hand_count, 'hand')}"
            )
        self.stdout.write(
            f"Dry run: would forget {plural(len(rows), 'sitting')} untouched for {plural(days, 'day')} "
            f"({plural(hands, 'hand')}); nothing was deleted."
        )
