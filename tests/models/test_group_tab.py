"""A group's tab: balances over nights of money matches less the payments marked, the open payments,
and what marking, taking back and forgiving refuse."""

import datetime
from unittest import mock

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matches.domain.errors import BadInput, Conflict
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.domain.settlement import settle
from matches.models import Forgiveness, Group, Payment, Sitting
from matches.services.tab import forgive, read_tab

from tests.conftest import examples

pytestmark = pytest.mark.django_db
SETTINGS = settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
PEOPLE = ["Ana", "Ben", "Cleo", "Dan"]


def expected_gains(sitting: Sitting, stake: int) -> dict[int, int]:
    """Each player's gain over the sitting's recorded hands: in Fapfap the others pay the winner stake x
    multiplier; in Cat Tê each chip a hand moved is worth the stake."""
    seats = list(sitting.seats.order_by("position"))
    gains = {seat.player_id: 0 for seat in seats}
    if sitting.game == "cat-te":
        for hand in sitting.hands.filter(winner__isnull=False):
            for seat in seats:
                gains[seat.player_id] += stake * hand.points[seat.position]
        return gains
    for hand in sitting.hands.filter(winner__isnull=False):
        times = max(hand.points)
        for seat in seats:
            if seat.pk != hand.winner_id:
                gains[seat.player_id] -= stake * times
                gains[hand.winner.player_id] += stake * times
    return gains


@SETTINGS
@given(st.data())
def test_the_tab_is_every_hand_s_gains_less_every_payment_and_settles_in_the_fewest_payments(data):
    """Amounts in the currency's smallest unit: cents for €, whole francs for CFA; Fapfap stakes and Cat Tê
    chips with a worth both move money."""
    group = Group.create("Tab", PEOPLE)
    ids = [player.pk for player in group.members()]
    expected = dict.fromkeys(ids, 0)
    currency = data.draw(st.sampled_from(["CFA", "€"]))
    for night in range(data.draw(st.integers(1, 3))):
        for _ in range(data.draw(st.integers(1, 2))):
            stake = data.draw(st.integers(1, 500))  # 500 CFA, or 5,00 € (1 is one cent)
            game = data.draw(st.sampled_from(["fapfap", "fapfap", "cat-te"]))
            seated = data.draw(st.lists(st.sampled_from(ids), min_size=2 if game == "fapfap" else 3, max_size=4, unique=True))
            end = MatchEnd(MatchEndKind.HANDS, 40 if game == "fapfap" else 12)
            sitting = group.start_match(game, seated, end, stake_amount=stake, stake_label=currency)
            answer = (lambda: {"multiplier": data.draw(st.sampled_from("124"))}) if game == "fapfap" else (lambda: {"how": "last"})
            Sitting.objects.filter(pk=sitting.pk).update(started_at=timezone.now() - datetime.timedelta(days=3 - night))
            for _ in range(data.draw(st.integers(0, 6))):
                sitting.refresh_from_db()
                open_number = sitting.hands.filter(winner__isnull=False).count() + 1
                step = data.draw(st.sampled_from(["tap", "tap", "tap", "correct", "undo"]))
                if step == "correct" and open_number > 1:
                    number = data.draw(st.integers(1, open_number - 1))
                    try:
                        sitting.correct_hand(number, data.draw(st.integers(0, len(seated) - 1)), answer())
                    except BadInput as unchanged:  # the hand says this already: nothing to count again
                        assert unchanged.code == "correct_unchanged"
                elif step == "undo" and open_number > 1:
                    sitting.undo_hand(open_number - 1)
                else:
                    sitting.record_hand(open_number, data.draw(st.integers(0, len(seated) - 1)), answer())
            if data.draw(st.booleans()):
                sitting.end_match()
            for player, gain in expected_gains(sitting, stake).items():
                expected[player] += gain
        for _ in range(data.draw(st.integers(0, 3))):  # a few partial payments, right or wrong way round
            payer, payee = data.draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2, unique=True))
            amount = data.draw(st.integers(1, 2000))
            paid = group.mark_paid(payer, payee, amount, currency, by="ph1")
            expected[payer] += amount
            expected[payee] -= amount
            if data.draw(st.integers(0, 4)) == 0:
                group.take_back(paid.pk, by="ph1")
                expected[payer] -= amount
                expected[payee] += amount
    tab = read_tab(group)
    names = {player.pk: player.name for player in group.members()}
    by_name = dict(tab.balances.get(currency, []))
    assert sum(by_name.values()) == 0
    assert {name: by_name.get(name, 0) for name in names.values()} == {names[p]: owed for p, owed in expected.items()}
    owed = {p: expected[p] for p in ids}
    assert len(tab.owed) == len(settle(owed))
    for suggestion in tab.owed:
        owed[suggestion.payer] += suggestion.amount
        owed[suggestion.payee] -= suggestion.amount
    assert set(owed.values()) <= {0}


def test_marking_a_suggested_payment_settles_it_and_the_rest_carries_over():
    group = Group.create("Tab", ["Ana", "Ben", "Cleo"])
    sitting = group.start_match("fapfap", [p.pk for p in group.members()], stake_amount=100, stake_label="CFA")
    sitting.record_hand(1, 0, {"multiplier": "1"})  # Ben and Cleo each owe Ana 100
    first = read_tab(group).owed
    assert [(o.payer_name, o.payee_name, o.amount) for o in first] == [("Ben", "Ana", 100), ("Cleo", "Ana", 100)]
    group.mark_paid(first[0].payer, first[0].payee, 100, "CFA", by="ph1")
    assert [(o.payer_name, o.amount) for o in read_tab(group).owed] == [("Cleo", 100)]
    assert dict(read_tab(group).balances["CFA"]) == {"Ana": 100, "Ben": 0, "Cleo": -100}


@pytest.mark.parametrize(
    ("payer", "payee", "amount", "code"),
    [(0, 0, 5, "paid_self"), (0, 1, 0, "payment_amount"), (0, 1, -3, "payment_amount"), (0, 1, 10**16, "payment_amount")],
)
def test_marking_a_payment_refuses_nonsense_and_writes_nothing(payer, payee, amount, code):
    group = Group.create("Tab", ["Ana", "Ben"])
    ids = [p.pk for p in group.members()]
    version = group.version
    with pytest.raises(BadInput) as refused:
        group.mark_paid(ids[payer], ids[payee], amount, "CFA", by="ph1")
    assert refused.value.code == code
    group.refresh_from_db()
    assert (Payment.objects.count(), group.version) == (0, version)


def test_marking_a_payment_refuses_a_player_of_another_group():
    group, other = Group.create("Tab", ["Ana", "Ben"]), Group.create("Other", ["Zoe"])
    ana, _ = (p.pk for p in group.members())
    for stranger in (other.members()[0].pk, 2**70):
        with pytest.raises(Conflict) as refused:
            group.mark_paid(ana, stranger, 5, "CFA")
        assert refused.value.code == "not_in_group"
    assert not Payment.objects.exists()


def test_what_an_erased_player_owes_stays_on_the_tab_and_can_be_marked_paid():
    group = Group.create("Tab", ["Ana", "Ben"])
    sitting = group.start_match("fapfap", [p.pk for p in group.members()], stake_amount=100, stake_label="CFA")
    sitting.record_hand(1, 0, {"multiplier": "1"})  # Ben owes Ana 100
    ana, ben = (p.pk for p in group.members())
    group.erase_player(ben)
    ((owed,),) = [read_tab(group).owed]
    assert (owed.payer, owed.payee, owed.amount) == (ben, ana, 100)
    group.mark_paid(ben, ana, 60, "CFA", by="ph1")
    assert [(o.payer, o.amount) for o in read_tab(group).owed] == [(ben, 40)]


@pytest.mark.parametrize("back_at, allowed", [("00:30", True), ("05:59", True), ("06:00", False)])
def test_a_payment_marked_before_midnight_is_that_nights_until_morning(back_at, allowed):
    """Cards go on past midnight: a payment marked at 23:45 in Yaoundé is taken back at 00:30, not the
    next day at 06:00."""
    group = Group.create("Tab", ["Ana", "Ben"], time_zone="Africa/Douala")  # UTC+1
    ana, ben = (p.pk for p in group.members())
    evening = datetime.datetime(2026, 12, 5, 22, 45, tzinfo=datetime.UTC)  # 23:45 in Douala
    hour, minute = map(int, back_at.split(":"))
    later = datetime.datetime(2026, 12, 5, 23, 0, tzinfo=datetime.UTC) + datetime.timedelta(hours=hour, minutes=minute)
    with mock.patch("django.utils.timezone.now", return_value=evening):
        paid = group.mark_paid(ana, ben, 50, "CFA", by="ph1")
    with mock.patch("django.utils.timezone.now", return_value=later):
        if allowed:
            assert group.take_back(paid.pk, by="ph1").taken_back_at == later
        else:
            with pytest.raises(Conflict) as refused:
                group.take_back(paid.pk, by="ph1")
            assert refused.value.code == "payment_too_old"


def test_only_the_phone_that_marked_a_payment_takes_it_back_and_only_that_night():
    group = Group.create("Tab", ["Ana", "Ben"])
    ana, ben = (p.pk for p in group.members())
    paid = group.mark_paid(ana, ben, 50, "CFA", by="ph1")
    for phone in ("ph2", ""):
        with pytest.raises(Conflict) as refused:
            group.take_back(paid.pk, by=phone)
        assert refused.value.code == "payment_not_yours"
    Payment.objects.filter(pk=paid.pk).update(at=timezone.now() - datetime.timedelta(days=1))
    with pytest.raises(Conflict) as refused:
        group.take_back(paid.pk, by="ph1")
    assert refused.value.code == "payment_too_old"
    tonight = group.mark_paid(ana, ben, 20, "CFA", by="ph1")
    version = group.version
    assert group.take_back(tonight.pk, by="ph1").taken_back_at is not None
    assert group.version == version + 1
    assert group.take_back(tonight.pk, by="ph1").taken_back_at is not None  # twice is once
    assert group.version == version + 1
    with pytest.raises(Conflict) as refused:
        Group.create("Other").take_back(paid.pk, by="ph1")
    assert refused.value.code == "payment_gone"


def test_forgiving_the_tab_starts_every_balance_at_zero_and_keeps_a_receipt():
    group = Group.create("Tab", ["Ana", "Ben"])
    sitting = group.start_match("fapfap", [p.pk for p in group.members()], stake_amount=10, stake_label="CFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    group.mark_paid(sitting.seats.get(position=1).player_id, sitting.seats.get(position=0).player_id, 5, "CFA")
    assert read_tab(group).owed[0].amount == 15
    forgiven = forgive(group, by="ph9")
    tab = read_tab(group)
    assert tab.owed == [] and tab.balances == {} and tab.since == forgiven.at
    assert [f.by_phone for f in tab.forgiven] == ["ph9"] and len(tab.payments) == 1  # history stays


def test_hands_won_after_a_forgiveness_in_a_match_played_on_across_it_are_owed():
    group = Group.create("Tab", ["Ana", "Ben"])
    ana, ben = (p.pk for p in group.members().order_by("pk"))
    sitting = group.start_match("fapfap", [ana, ben], stake_amount=10, stake_label="CFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})  # Ana +20
    forgive(group, by="ph1")
    assert read_tab(group).owed == []
    sitting.record_hand(2, 1, {"multiplier": "1"})  # Ben +10, after the forgiveness
    tab = read_tab(group)
    assert [(o.payer_name, o.payee_name, o.amount) for o in tab.owed] == [("Ana", "Ben", 10)]
    assert [m.key for m in tab.read.playing] == [sitting.pk]  # its night is the tab's
    forgive(group, by="ph1")  # a second forgiveness wipes off what stands then, and only that
    sitting.record_hand(3, 0, {"multiplier": "4"})  # Ana +40
    assert [(o.payer_name, o.amount) for o in read_tab(group).owed] == [("Ben", 40)]


def test_a_payment_forgiven_with_the_rest_cannot_be_taken_back():
    group = Group.create("Tab", ["Ana", "Ben"])
    ana, ben = (p.pk for p in group.members().order_by("pk"))
    sitting = group.start_match("fapfap", [ana, ben], stake_amount=10, stake_label="CFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    paid = group.mark_paid(ben, ana, 5, "CFA", by="ph1")
    forgive(group, by="ph2")
    with pytest.raises(Conflict) as refused:
        group.take_back(paid.pk, by="ph1")
    assert refused.value.code == "payment_forgiven" and read_tab(group).owed == []


def test_a_forgiveness_that_kept_no_balances_wipes_what_was_started_and_marked_before_it():
    group = Group.create("Tab", ["Ana", "Ben"])
    ana, ben = (p.pk for p in group.members().order_by("pk"))
    before = group.start_match("fapfap", [ana, ben], stake_amount=10, stake_label="CFA")
    before.record_hand(1, 0, {"multiplier": "2"})
    group.mark_paid(ben, ana, 5, "CFA")
    Forgiveness.objects.create(group=group, balances=None)  # as forgiven before balances were kept
    after = group.start_match("fapfap", [ana, ben], stake_amount=10, stake_label="CFA")
    after.record_hand(1, 1, {"multiplier": "1"})
    assert [(o.payer_name, o.payee_name, o.amount) for o in read_tab(group).owed] == [("Ana", "Ben", 10)]
