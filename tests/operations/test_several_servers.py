"""Several app servers share one PostgreSQL (and one Redis for the rate limits): the app keeps no
state in its processes. Two gunicorn servers on two ports, one sitting, phones on both."""

import os
import threading

import pytest
import redis
from django.db import connection

from matches.models import Seat, Sitting

from tests.servers import Phone, gunicorn, redis_url
from tests.models.test_snapshot import TALLY, TALLY_ROW, torn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.engine]
REDIS_URL = redis_url()
HANDS = 20


@pytest.fixture
def shared_redis():
    """The Redis server both app servers count in (started by the test command when missing)."""
    if connection.vendor != "postgresql":
        pytest.skip("runs on the PostgreSQL leg of the tests")
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.flushdb()
    except redis.ConnectionError:
        if os.environ.get("REQUIRE_POSTGRES") == "1":
            raise
        pytest.skip(f"no Redis server answered at {REDIS_URL}")
    yield REDIS_URL
    client.flushdb()


def test_two_servers_one_database_taps_through_both_polls_through_the_other(tmp_path, shared_redis):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    settings = {"CACHE_URL": shared_redis, "TAP_RATE_LIMIT": f"{HANDS + 5}/d", "TAP_ADDRESS_RATE_LIMIT": "1000/d"}
    # (a day's window: django-ratelimit starts each key's window at its own offset, and an hour's
    # window ending mid-test would start the count again)
    with gunicorn(tmp_path, workers=2, **settings) as one, gunicorn(tmp_path, workers=2, **settings) as two:
        servers = [f"{one}/s/{sitting.token}/", f"{two}/s/{sitting.token}/"]
        watch = [f"{one}/w/{sitting.watch_token}/", f"{two}/w/{sitting.watch_token}/"]
        a, b, counted = Phone(), Phone(), Phone()
        for index, phone in enumerate((a, b, counted)):
            phone.get(servers[index % 2])  # a session signed by one server is good on the other
            phone.post(servers[(index + 1) % 2] + "me/", {"seat": index + 1}, htmx=False)

        for number in range(1, HANDS + 1):
            answers: dict[str, int] = {}

            def tap(name: str, phone: Phone, server: str, winner: int) -> None:
                answers[name] = phone.post(server + "tap/", {"number": number, "winner": winner}).status

            both = [
                threading.Thread(target=tap, args=("a", a, servers[number % 2], number % 4 + 1)),
                threading.Thread(target=tap, args=("b", b, servers[(number + 1) % 2], (number + 1) % 4 + 1)),
            ]
            for thread in both:
                thread.start()
            for thread in both:
                thread.join(30)
            assert sorted(answers.values()) == [200, 409], (number, answers)  # two winners for one hand, two servers
            for server in servers:
                poll = counted.get(server + "poll/", htmx=True)
                assert poll.status == 200 and torn(poll.body) is None
                assert f'<td class="num">{number}</td>' in poll.body

        # One rate-limit count for the phone, whichever server it reaches: seat claim + taps.
        statuses = [counted.post(servers[n % 2] + "tap/", {"number": 1, "winner": 1}).status for n in range(HANDS + 6)]
        uncounted = [line for log in tmp_path.glob("gunicorn-*.log") for line in log.read_text().splitlines()
                     if "rate limits not counted" in line]
        assert statuses == [409] * (HANDS + 4) + [429, 429], (statuses, uncounted)

        totals = {seat.name: (seat.total, seat.hands_won) for seat in Seat.objects.filter(sitting=sitting)}
        for page in watch:
            tally = TALLY.search(Phone().get(page).body)[0]
            shown = [int(won) for won in TALLY_ROW.findall(tally)]
            assert shown == [totals[name][1] for name in ["Aïcha", "Boubacar", "Chaibou", "Djibo"]]
    assert list(sitting.hands.values_list("number", flat=True)) == list(range(1, HANDS + 1))
    assert sitting.check_totals() == []
    assert sum(total for total, _ in totals.values()) == HANDS
