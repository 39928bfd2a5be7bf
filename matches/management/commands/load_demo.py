from django.core.management.base import BaseCommand

from matches.demo import create_demo_sitting


class Command(BaseCommand):
    help = "Create the worked sitting of RULES.md (Chaibou wins hand 1) and print its match table's path."

    def handle(self, *args, **options):
        sitting = create_demo_sitting()
        self.stdout.write(f"Demo match table: {sitting.get_absolute_url()}")
        self.stdout.write("Open it after the address `make run` prints, e.g. http://127.0.0.1:8000" + sitting.get_absolute_url())
