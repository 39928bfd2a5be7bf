from django.core.management.base import BaseCommand

from matches.services.demo import create_demo_sitting
from matches.management.commands.lan_address import lan_ip


class Command(BaseCommand):
    help = "Create the worked sitting of RULES.md (Chaibou wins hand 1) and print its match table's path."

    def handle(self, *args, **options):
        sitting = create_demo_sitting()
        path = sitting.get_absolute_url()
        self.stdout.write(f"Demo match table: http://127.0.0.1:8000{path}")
        if ip := lan_ip():
            self.stdout.write(f"From a phone on the same Wi-Fi: http://{ip}:8000{path}")
