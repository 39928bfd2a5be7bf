"""The group page's tab (balances, one-tap Mark paid without JavaScript) and the tab's history page."""

import csv
import re
import io

import pytest
from django.test import Client
from django.urls import reverse

from matches.models import Group, Payment
from matches.services.tab import forgive

from tests.conftest import shown

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
    assert "<bdi>Ben</bdi> pays <bdi>Ana</bdi> 100\u00a0CFA." in page
    assert "<bdi>دانا</bdi> pays <bdi>Ana</bdi> 100\u00a0CFA." in page
    assert page.count(f'action="{reverse("group-paid", args=[owing.token])}"') == 2


def paying(owing: Group, amount: str | None = None, **more) -> dict:
    """Mark paid as the group page's form for "Ben pays Ana 100 CFA" posts it (`amount`: as typed; None: a
    page with no amount field, which pays all that is owed)."""
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    typed = {} if amount is None else {"amount": amount}
    return {"payer": ben, "payee": ana, "after": 0, "currency": "CFA", **typed, **more}


def test_mark_paid_is_one_plain_post_that_moves_the_group_on_and_settles_that_payment(client, owing):
    version = owing.version
    answer = client.post(reverse("group-paid", args=[owing.token]), paying(owing))
    assert answer.status_code == 302
    owing.refresh_from_db()
    assert owing.version == version + 1
    page = client.get(owing.get_absolute_url()).content.decode()
    assert "Marked paid: <bdi>Ben</bdi> to <bdi>Ana</bdi>, 100\u00a0CFA." in page
    tab = page[page.index('id="tab"') :]  # (tonight's settling up still says what the night moved)
    assert "<bdi>Ben</bdi> pays" not in tab and "<bdi>دانا</bdi> pays <bdi>Ana</bdi> 100\u00a0CFA." in tab


@pytest.mark.parametrize("field, value", [("payer", ""), ("payer", "abc"), ("after", "-5"), ("payee", "0"), ("payer", "9" * 30), ("key", "x" * 40)])
def test_a_mark_paid_that_makes_no_sense_says_so_and_changes_nothing(client, owing, field, value):
    answer = client.post(reverse("group-paid", args=[owing.token]), paying(owing, **{field: value}))
    assert answer.status_code == 400 and 'class="notice error"' in answer.content.decode()
    assert not Payment.objects.exists()


def test_a_mark_paid_naming_two_payers_is_refused_not_read_as_the_last(client, owing):
    dana = owing.players.get(name="دانا").pk
    answer = client.post(reverse("group-paid", args=[owing.token]), {**paying(owing), "payer": [paying(owing)["payer"], dana]})
    assert answer.status_code == 400 and not Payment.objects.exists()


@pytest.mark.parametrize(
    ("typed", "message"),
    [("abc", "Type the amount in figures only, like 100."), ("-5", "Type the amount in figures only, like 100."),
     ("1 00", "Type an amount, like 100."), ("0", "Type an amount from 1\u00a0CFA to 100\u00a0CFA."),
     ("101", "Type an amount from 1\u00a0CFA to 100\u00a0CFA."), ("0.5", "CFA has no smaller unit: type a whole amount, like 100."),
     ("9" * 50, "Type an amount from 1\u00a0CFA to 100\u00a0CFA.")],
)
def test_a_part_paid_that_is_not_an_amount_up_to_what_is_owed_is_refused_beside_it_as_typed(client, owing, typed, message):
    answer = client.post(reverse("group-paid", args=[owing.token]), paying(owing, typed))
    page = answer.content.decode()
    assert answer.status_code == 400 and f'<p class="field-error" id="paid-error">{message}</p>' in page
    assert f'value="{typed}" class="narrow" aria-invalid="true"' in page
    assert not Payment.objects.exists()


def test_a_part_paid_beaten_by_another_phone_is_told_that_phone_paid_not_how_much_to_type(client, owing):
    url = reverse("group-paid", args=[owing.token])
    assert Client().post(url, paying(owing, "60")).status_code == 302  # another phone, same page: 40 owed now
    late = client.post(url, paying(owing, "60"))
    assert late.status_code == 409 and "A payment between these two was just marked" in late.content.decode()
    assert Payment.objects.count() == 1


def test_the_example_a_refused_part_paid_gives_is_one_the_field_takes(client, owing):
    url = reverse("group-paid", args=[owing.token])
    assert client.post(url, paying(owing, "60")).status_code == 302  # 40 owed now
    refused = client.post(url, paying(owing, "abc", after=Payment.objects.get().pk))
    assert "Type the amount in figures only, like 40." in refused.content.decode()


def test_no_more_than_is_owed_now_is_marked_paid_whatever_the_page_said(client, owing):
    url = reverse("group-paid", args=[owing.token])
    assert client.post(url, paying(owing, "60")).status_code == 302
    too_much = client.post(url, paying(owing, "60"))  # the same page's form again (Back): 40 is owed now
    assert too_much.status_code == 409 and "A payment between these two was just marked" in too_much.content.decode()
    newest = Payment.objects.get().pk
    too_much = client.post(url, paying(owing, "60", after=newest))  # the page read again: told the most to type
    assert too_much.status_code == 400 and "Type an amount from 1\u00a0CFA to 40\u00a0CFA." in too_much.content.decode()
    stale = client.post(url, paying(owing, "30"))  # still from before that payment: the tab moved on
    assert stale.status_code == 409 and "A payment between these two was just marked" in stale.content.decode()
    first = Payment.objects.get().pk
    assert client.post(url, paying(owing, after=first)).status_code == 302  # blank: the rest
    done = client.post(url, paying(owing, after=Payment.objects.last().pk))
    assert done.status_code == 409
    assert sorted(Payment.objects.values_list("amount", flat=True)) == [40, 60]


def test_a_resent_mark_paid_is_the_first_ones_payment(client, owing):
    url = reverse("group-paid", args=[owing.token])
    for _ in range(2):
        assert client.post(url, paying(owing, "30", key="pay1")).status_code == 302
    assert list(Payment.objects.values_list("amount", flat=True)) == [30]


def test_a_late_copy_of_a_mark_paid_taken_back_since_says_so_and_marks_nothing(client, owing):
    url = reverse("group-paid", args=[owing.token])
    client.get(owing.get_absolute_url())  # this phone gets its id
    client.post(url, paying(owing, "30", key="pay1"))
    client.post(reverse("group-take-back", args=[owing.token]), {"payment": Payment.objects.get().pk})
    late = client.post(url, paying(owing, "30", key="pay1"), HTTP_ACCEPT_LANGUAGE="fr")
    text = shown(late.content.decode())
    assert late.status_code == 409 and "Ce paiement (Ben à Ana, 30\u00a0CFA) a été annulé à" in text, text
    assert "il n’a pas été noté de nouveau" in text and Payment.objects.get().taken_back_at is not None


def test_a_payment_marked_on_another_phone_since_this_page_was_read_is_not_marked_again(client, owing):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    owing.mark_paid(ben, ana, 10, "CFA", by="other")
    late = client.post(reverse("group-paid", args=[owing.token]), paying(owing, "20"))  # `after`: none seen
    assert late.status_code == 409 and list(Payment.objects.values_list("amount", flat=True)) == [10]


def test_a_mark_paid_after_a_payment_no_page_showed_is_refused_not_let_past_the_check_above(client, owing):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    owing.mark_paid(ben, ana, 10, "CFA", by="other")
    newest = Payment.objects.get().pk
    forged = client.post(reverse("group-paid", args=[owing.token]), paying(owing, "20", after=newest + 1000))
    assert forged.status_code == 400 and "That payment could not be read" in shown(forged.content.decode())
    assert list(Payment.objects.values_list("amount", flat=True)) == [10]


def test_a_part_paid_in_cents_is_kept_in_cents(client):
    group = Group.create("Skat", ["Ana", "Ben"])
    ana, ben = (p.pk for p in group.members())
    group.start_match("fapfap", [ana, ben], stake_amount=1250, stake_label="€").record_hand(1, 0, {"multiplier": "1"})
    paid = {"payer": ben, "payee": ana, "after": 0, "amount": "2,50", "currency": "€"}
    assert client.post(reverse("group-paid", args=[group.token]), paid).status_code == 302
    assert Payment.objects.get().amount == 250


def test_the_tab_page_lists_payments_strikes_those_taken_back_and_forgives(client, owing):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    client.get(owing.get_absolute_url())  # this phone gets its id
    client.post(reverse("group-paid", args=[owing.token]), paying(owing, "40"))
    paid = Payment.objects.get()
    tab_url = reverse("group-tab", args=[owing.token])
    page = client.get(tab_url).content.decode()
    assert "<bdi>Ben</bdi> paid <bdi>Ana</bdi> 40\u00a0CFA." in page and "Take back" in page
    assert "<bdi>Ben</bdi> pays <bdi>Ana</bdi> 60\u00a0CFA." in page  # what is left of it stays open
    client.post(reverse("group-take-back", args=[owing.token]), {"payment": paid.pk, "back": "tab"})
    page = client.get(tab_url).content.decode()
    assert "<del><bdi>Ben</bdi> paid <bdi>Ana</bdi> 40\u00a0CFA.</del>" in page and "Take back</button>" not in page
    assert re.search(r"Taken back \d+ \w+ \d{4}, \d\d:\d\d on this phone\.", page)  # its receipt: when, and where
    refused = client.post(reverse("group-forgive", args=[owing.token]), {"back": "tab"})
    assert refused.status_code == 400 and "Tick the box" in refused.content.decode() and not owing.forgivenesses.exists()
    client.post(reverse("group-forgive", args=[owing.token]), {"sure": "yes", "back": "tab"})
    page = client.get(tab_url).content.decode()
    assert "Every debt forgiven" in page and "Nobody owes anything." in page


def test_tonights_settling_up_says_nobody_owes_anything_once_the_tab_is_forgiven(client, owing):
    """Tonight's matches still say who would pay whom, but no longer read as what is owed now."""
    page = client.get(owing.get_absolute_url()).content.decode()
    assert "before any payment: what is still owed is in the tab below." in page
    client.post(reverse("group-forgive", args=[owing.token]), {"sure": "yes"})
    page = client.get(owing.get_absolute_url()).content.decode()
    assert "<bdi>Ben</bdi> pays <bdi>Ana</bdi> 100" in page  # what tonight's matches came to
    assert "all is paid or forgiven since, nobody owes anything now." in page


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
    forgive(owing, by="ph1")
    answer = client.get(reverse("group-csv", args=[owing.token]))
    rows = list(csv.DictReader(io.StringIO(b"".join(answer.streaming_content).decode("utf-8-sig"))))
    paid = [row for row in rows if row["row_type"] == "payment"]
    assert [(r["player"], r["payee"], r["paid"], r["currency"]) for r in paid] == [("Ben", "Ana", "40", "CFA")]
    assert paid[0]["taken_back"] and rows[-1]["row_type"] == "forgiven"


def test_the_group_page_lists_what_this_phone_marked_paid_tonight_with_take_back_and_others_do_not(client, owing):
    client.get(owing.get_absolute_url())  # this phone gets its id
    client.post(reverse("group-paid", args=[owing.token]), paying(owing, "30"))
    page = client.get(owing.get_absolute_url()).content.decode()
    mine = page[page.index("Marked paid tonight on this phone:") :]
    assert "<bdi>Ben</bdi> paid <bdi>Ana</bdi> 30\u00a0CFA." in mine and "Take back" in mine
    assert "Marked paid tonight on this phone" not in Client().get(owing.get_absolute_url()).content.decode()


def test_the_group_page_lists_what_other_phones_marked_paid_tonight_without_take_back(client, owing):
    """No money moves silently: a payment marked on another phone shows beside the balances it moved."""
    client.get(owing.get_absolute_url())
    other = Client()
    other.get(owing.get_absolute_url())
    other.post(reverse("group-paid", args=[owing.token]), paying(owing, "30"))
    page = client.get(owing.get_absolute_url()).content.decode()
    others = page[page.index("Marked paid tonight on another phone:") :]
    assert "<bdi>Ben</bdi> paid <bdi>Ana</bdi> 30\u00a0CFA." in others and "Take back" not in others
    assert "on another phone" not in other.get(owing.get_absolute_url()).content.decode()  # its own, with Take back


def test_tonights_settling_up_says_it_is_before_payments_when_the_tab_shows_what_is_still_owed(client, owing):
    client.post(reverse("group-paid", args=[owing.token]), paying(owing, "30"))
    page = client.get(owing.get_absolute_url()).content.decode()
    tonight = page[page.index("Tonight's settling up") : page.index('<section id="tab"')]
    assert "before any payment: what is still owed is in the tab below." in tonight


def test_a_take_back_naming_two_payments_is_refused_and_changes_nothing(client, owing):
    client.get(owing.get_absolute_url())  # this phone gets its id
    client.post(reverse("group-paid", args=[owing.token]), paying(owing, "40"))
    paid, version = Payment.objects.get(), Group.objects.get(pk=owing.pk).version
    for order in ((paid.pk, paid.pk + 1), (paid.pk + 1, paid.pk)):
        body = "&".join(f"payment={pk}" for pk in order) + "&back=tab"
        answer = client.post(reverse("group-take-back", args=[owing.token]), body, content_type="application/x-www-form-urlencoded")
        assert answer.status_code == 400 and "two different values for one field" in answer.content.decode()
    assert Payment.objects.get().taken_back_at is None and Group.objects.get(pk=owing.pk).version == version


def test_another_phone_is_not_told_it_took_back_a_payment_taken_back_already(client, owing):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    owing.take_back(owing.mark_paid(ben, ana, 40, "CFA", by="ph1").pk, by="ph1")
    client.get(owing.get_absolute_url())
    answer = client.post(reverse("group-take-back", args=[owing.token]), {"payment": Payment.objects.get().pk})
    assert answer.status_code == 409 and "Payment taken back." not in answer.content.decode()


NOTHING_OWED = "Nothing is owed between these two players in this currency now"


@pytest.mark.parametrize(
    ("change", "status", "message"),
    [
        ({"currency": "EUR"}, 409, NOTHING_OWED),
        ({"payer": "Ana", "payee": "Ben"}, 409, NOTHING_OWED),  # the other way round
        ({"payer": "Ben", "payee": "دانا"}, 409, NOTHING_OWED),  # neither owes the other
        ({"payee": "Ben"}, 400, "A payment goes from one player to another: pick two players."),
        ({"payer": 999_999}, 409, "That player is not in this group."),
    ],
)
def test_mark_paid_for_what_nobody_owes_says_why_not_that_a_payment_was_just_marked(client, owing, change, status, message):
    """The page was read before another pair's payment (its `after` older than that payment): that payment is
    no reason, and the words say what is wrong with this one."""
    ids = {player.name: player.pk for player in owing.players.all()}
    other = owing.mark_paid(ids["دانا"], ids["Ana"], 100, "CFA")
    answer = client.post(reverse("group-paid", args=[owing.token]), paying(owing, **{k: ids.get(v, v) for k, v in change.items()}))
    said = shown(answer.content.decode())
    assert answer.status_code == status and message in said
    assert "just marked" not in said and list(Payment.objects.all()) == [other]


def test_a_payment_marked_before_the_tab_was_forgiven_offers_no_take_back(client, owing):
    client.get(owing.get_absolute_url())  # this phone gets its id
    client.post(reverse("group-paid", args=[owing.token]), paying(owing, "30"))
    forgive(owing, by="ph2")
    for page in (owing.get_absolute_url(), reverse("group-tab", args=[owing.token])):
        assert "Take back" not in client.get(page).content.decode(), page


def test_a_hand_corrected_after_payments_says_on_the_group_page_and_the_tab_what_it_moved(client, owing):
    """Ana won hand 1 at x1 (Ben and دانا owe her 100 each); Ben paid; then hand 1 is corrected to x2."""
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    owing.mark_paid(ben, ana, 100, "CFA", by="ph1")
    sitting = owing.sittings.get()
    sitting.correct_hand(1, sitting.seats.get(player_id=ana).position, {"multiplier": "2"})
    said = re.compile(r"Fapfap of .+: Hand 1 changed on another phone at \d\d:\d\d: Ana \(.+\) → Ana \(.+\): "
                      r"Ana \+200\u00a0CFA, Ben −100\u00a0CFA, \u2068?دانا\u2069? −100\u00a0CFA\.")
    group_page = shown(client.get(owing.get_absolute_url()).content.decode())
    tab_page = shown(client.get(reverse("group-tab", args=[owing.token])).content.decode())
    assert "Moved tonight by a hand corrected or undone after the fact:" in group_page and said.search(group_page), group_page
    assert "Hands corrected or undone after the fact" in tab_page and said.search(tab_page)


def test_an_undo_is_listed_with_what_it_moved_only_when_a_payment_came_between_its_hand_and_it(client, owing):
    ana, ben = (owing.players.get(name=name).pk for name in ("Ana", "Ben"))
    sitting = owing.sittings.get()
    sitting.record_hand(2, sitting.seats.get(player_id=ben).position, {"multiplier": "1"})
    sitting.undo_hand(2)  # a mis-tap taken back at once: nothing had been settled
    assert "undone" not in shown(client.get(reverse("group-tab", args=[owing.token])).content.decode())
    owing.mark_paid(ben, ana, 100, "CFA", by="ph1")
    sitting.undo_hand(1)  # Ana's hand, after Ben paid for it
    tab_page = shown(client.get(reverse("group-tab", args=[owing.token])).content.decode())
    said = re.compile(r"Hand 1 undone on another phone at \d\d:\d\d: Ana \(.+\): Ana −200\u00a0CFA, Ben \+100\u00a0CFA")
    assert said.search(tab_page) and tab_page.count("undone on") == 1, tab_page


def test_a_payment_taken_back_twice_is_said_to_be_taken_back_already_with_when(client, owing):
    client.get(owing.get_absolute_url())  # this phone gets its id
    client.post(reverse("group-paid", args=[owing.token]), paying(owing, "30"))
    back = {"payment": Payment.objects.get().pk}
    first = client.post(reverse("group-take-back", args=[owing.token]), back, follow=True).content.decode()
    again = client.post(reverse("group-take-back", args=[owing.token]), back, follow=True).content.decode()
    assert "Payment taken back." in first and "already taken back" not in first
    assert re.search(r"This payment was already taken back, at \d\d?:\d\d", shown(again))


def test_a_paid_amount_left_blank_is_refused_not_taken_as_all_of_it(client, owing):
    answer = client.post(reverse("group-paid", args=[owing.token]), paying(owing, "  "), HTTP_ACCEPT_LANGUAGE="fr")
    assert answer.status_code == 400 and "Tapez un montant" in shown(answer.content.decode())
    assert not Payment.objects.exists()


def test_the_tabs_history_says_what_each_forgiveness_wiped_off(client, owing):
    forgive(owing, by="ph1")
    sitting = owing.sittings.get()
    ben = sitting.seats.get(player__name="Ben").position
    sitting.record_hand(2, ben, {"multiplier": "1"})  # Ben +200, after it
    forgive(owing, by="ph1")
    forgive(owing, by="ph1")  # with nothing owed: wipes nothing
    page = shown(client.get(reverse("group-tab", args=[owing.token])).content.decode())
    wiped = re.findall(r"Wiped off: ([^.]*)\.", page)  # newest first
    assert wiped == ["Ana −100\u00a0CFA, Ben +200\u00a0CFA, دانا −100\u00a0CFA",
                     "Ana +200\u00a0CFA, Ben −100\u00a0CFA, دانا −100\u00a0CFA"], wiped
