import socket

from django.conf import settings
from django.core.management.base import BaseCommand


def lan_ip() -> str | None:
    """This machine's address on the local network (no packet is sent), or None when offline."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
        except OSError:
            return None


def own_hosts() -> list[str]:
    """The names phones and this computer may use for it: loopback, its LAN address, its host name."""
    hosts = ["127.0.0.1", "localhost", "[::1]", socket.gethostname()]
    if (ip := lan_ip()) and ip not in hosts:
        hosts.append(ip)
    return hosts


class Command(BaseCommand):
    help = "Print the addresses phones on the same Wi-Fi can open (--hosts: this computer's names, for ALLOWED_HOSTS)."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--hosts", action="store_true", help="print the host names, comma-separated")
        parser.add_argument("--ip", action="store_true", help="print the LAN address alone (nothing when offline)")

    def handle(self, *args, port: int, hosts: bool, ip: bool, **options):
        if hosts:
            self.stdout.write(",".join(own_hosts()))
            return
        if ip:
            self.stdout.write(lan_ip() or "")
            return
        ip = settings.LAN_HOST or lan_ip()  # the address the share panel gives phones, when one is set
        self.stdout.write(f"Last Trick on this computer: http://127.0.0.1:{port}/")
        if ip and not ip.startswith("127."):
            self.stdout.write(f"Phones on the same Wi-Fi open:  http://{ip}:{port}/")
        else:
            self.stdout.write("No local network found: phones cannot reach this computer yet.")
