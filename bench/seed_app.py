"""The app's bench sittings, made by its own verbs as phones make them. Run under the app's settings:
`python bench/seed_app.py '{"10": 30, "1000": 6}'` migrates, collects the static files the pages name, starts
that many four-seat Agram sittings (open: they never end by themselves) of that many hands (Sitting.start,
then record_hand for each hand), and prints one JSON line per sitting."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorekeeper.settings")
import django  # noqa: E402

django.setup()
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from matches.domain.rules import MatchEnd, MatchEndKind  # noqa: E402
from matches.models import Sitting  # noqa: E402

call_command("migrate", verbosity=0)
call_command("collectstatic", interactive=False, verbosity=0)
for hands, count in json.loads(sys.argv[1]).items():
    for _ in range(count):
        sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"], MatchEnd(MatchEndKind.OPEN, None))
        for number in range(1, int(hands) + 1):
            sitting.record_hand(number, number % 4)
        row = {"token": sitting.token, "next": int(hands) + 1, "hands": int(hands), "version": sitting.version}
        print(json.dumps(row), flush=True)
if connection.vendor == "postgresql":
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as the peer's seed does
