from django.core.management.base import BaseCommand, CommandError

from matches.models import Sitting


class Command(BaseCommand):
    help = "Check that every seat's kept total and wins equal the ledger of hand points; exit 1 when not."

    def handle(self, *args, **options):
        wrong = 0
        for sitting in Sitting.objects.iterator():
            for line in sitting.check_totals():
                wrong += 1
                self.stdout.write(f"{sitting.get_absolute_url()} {line}")
        if wrong:
            raise CommandError(f"{wrong} seat(s) disagree with their ledger.")
        self.stdout.write("All totals agree with the ledger.")
