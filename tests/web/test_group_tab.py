"""The group page's tab (balances, one-tap Mark paid without JavaScript) and the tab's history page."""

import csv
import io

import pytest
from django.urls import reverse

from matches.models import Group, Payment

pytestmark = pytest.mark.django_db


@pytest.fixture
def owing():
    """Ana won a hand of Fapfap at 100 CFA against Ben and the right-to-left named دانا."""
    group = Group.create("Tab", ["Ana", "Ben", "دانا"])
    people = [p.pk for p in group.members()]
    sitting = group.start_match("fapfap", people, stake_amount=100, stake_label="CFA")
    sitting.record_hand(1, [p.name for p in sitting.seats.order_by("position")].index("Ana"), {"multiplier": "1"})
    return group


def test_the_group_page_shows_balances_and_each_open_payment_with_a_mark_paid_form(client, owing):
    page = client.get(owing.get_absolute_url()).content.decode()
    assert "The tab" in page and "+200" in page and "\u2212100" in page
    assert "<bdi>Ben</bdi> pays <bdi>Ana</bdi> 100 CFA." in page
    assert "<bdi>دانا</bdi> pays <bdi>Ana</bdi> 100 CFA." in page
    assert page.count(f'action="{reverse("group-paid", args=[owing.token])}"') == 2


def test_mark_paid_is_one_plain_post_that_moves_the_group_on_and_settles_that_payment(client, owing):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    version = owing.version
    answer = client.post(reverse("group-paid", args=[owing.token]), {"payer": ben, "payee": ana, "owed": 100, "currency": "CFA"})
    assert answer.status_code == 302
    owing.refresh_from_db()
    assert owing.version == version + 1
    page = client.get(owing.get_absolute_url()).content.decode()
    assert "Marked paid: <bdi>Ben</bdi> to <bdi>Ana</bdi>." in page
    tab = page[page.index('id="tab"') :]  # (tonight's settling up still says what the night moved)
    assert "<bdi>Ben</bdi> pays" not in tab and "<bdi>دانا</bdi> pays <bdi>Ana</bdi> 100 CFA." in tab


@pytest.mark.parametrize("owed", ["", "abc", "-5", "0", "9" * 30])
def test_a_mark_paid_that_makes_no_sense_says_so_and_changes_nothing(client, owing, owed):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    answer = client.post(reverse("group-paid", args=[owing.token]), {"payer": ben, "payee": ana, "owed": owed})
    assert answer.status_code == 400 and 'class="notice error"' in answer.content.decode()
    assert not Payment.objects.exists()


@pytest.mark.parametrize("typed", ["abc", "-5", "0", "101", "0.5", "9" * 50])
def test_a_part_paid_that_is_not_an_amount_up_to_what_is_owed_says_so_and_changes_nothing(client, owing, typed):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    answer = client.post(
        reverse("group-paid", args=[owing.token]), {"payer": ben, "payee": ana, "owed": 100, "amount": typed, "currency": "CFA"}
    )
    assert answer.status_code == 400 and "Type what was paid, up to 100\u00a0CFA, like 100." in answer.content.decode()
    assert not Payment.objects.exists()


def test_a_part_paid_in_cents_is_kept_in_cents(client, owing):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    paid = {"payer": ben, "payee": ana, "owed": 1250, "amount": "2,50", "currency": "€"}
    assert client.post(reverse("group-paid", args=[owing.token]), paid).status_code == 302
    assert Payment.objects.get().amount == 250


def test_the_tab_page_lists_payments_strikes_those_taken_back_and_forgives(client, owing):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    client.get(owing.get_absolute_url())  # this phone gets its id
    client.post(reverse("group-paid", args=[owing.token]), {"payer": ben, "payee": ana, "owed": 100, "amount": "40", "currency": "CFA"})
    paid = Payment.objects.get()
    tab_url = reverse("group-tab", args=[owing.token])
    page = client.get(tab_url).content.decode()
    assert "<bdi>Ben</bdi> pays <bdi>Ana</bdi> 40 CFA." in page and "Take back" in page
    assert "<bdi>Ben</bdi> pays <bdi>Ana</bdi> 60 CFA." in page  # what is left of it stays open
    client.post(reverse("group-take-back", args=[owing.token]), {"payment": paid.pk, "back": "tab"})
    page = client.get(tab_url).content.decode()
    assert "<del><bdi>Ben</bdi> pays <bdi>Ana</bdi> 40 CFA.</del>" in page and "Take back</button>" not in page
    refused = client.post(reverse("group-forgive", args=[owing.token]), {"back": "tab"})
    assert refused.status_code == 400 and "Tick the box" in refused.content.decode() and not owing.forgivenesses.exists()
    client.post(reverse("group-forgive", args=[owing.token]), {"sure": "yes", "back": "tab"})
    page = client.get(tab_url).content.decode()
    assert "Every debt forgiven" in page and "Nobody owes anything." in page


def test_another_phone_cannot_take_back_a_payment(client, owing):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    paid = owing.mark_paid(ben, ana, 10, "CFA", by="other")
    answer = client.post(reverse("group-take-back", args=[owing.token]), {"payment": paid.pk})
    assert answer.status_code == 409 and "Only the phone that marked this payment" in answer.content.decode()
    paid.refresh_from_db()
    assert paid.taken_back_at is None


def test_the_watch_link_shows_the_tab_without_any_form(client, owing):
    page = client.get(reverse("group-watch", args=[owing.watch_token])).content.decode()
    assert "+200" in page and "Mark paid" not in page and owing.token not in page


def test_the_group_csv_lists_each_payment_and_forgiveness_after_the_matches(client, owing):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    owing.take_back(owing.mark_paid(ben, ana, 40, "CFA", by="ph1").pk, by="ph1")
    owing.forgive_tab(by="ph1")
    answer = client.get(reverse("group-csv", args=[owing.token]))
    rows = list(csv.DictReader(io.StringIO(b"".join(answer.streaming_content).decode("utf-8-sig"))))
    paid = [row for row in rows if row["row_type"] == "payment"]
    assert [(r["player"], r["payee"], r["paid"], r["currency"]) for r in paid] == [("Ben", "Ana", "40", "CFA")]
    assert paid[0]["taken_back"] and rows[-1]["row_type"] == "forgiven"
