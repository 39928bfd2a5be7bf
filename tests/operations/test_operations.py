"""The operator's tools. Retention: `manage.py forget_old_sittings` deletes the sittings nobody touched
for RETENTION_DAYS (or --days) with their seats, hands and lone players, keeps a group's old matches
while the group plays on, lists what would go with --dry-run, keeps everything at 0 days. The admin,
for superusers only: the sittings found by a pasted link, shown with their seats and hands, never
edited, deleted with their rows. (Backup and restore: tests/operations/test_backup.py.)"""

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from matches.admin import tokens_in
from matches.models import Hand, Player, Seat, Sitting

from tests.conftest import play
from tests.rows import rows_of

CHANGELIST = "/admin/matches/sitting/"
PASSWORD = "a long operator passphrase"
pytestmark = pytest.mark.engine  # deletions with their rows, the admin's searches


def untouched_since(sitting: Sitting, days: float) -> None:
    """Make `sitting` look last changed `days` days ago."""
    Sitting.objects.filter(pk=sitting.pk).update(changed_at=timezone.now() - timedelta(days=days))


def forget(*args: str) -> str:
    out = StringIO()
    call_command("forget_old_sittings", *args, stdout=out)
    return out.getvalue()


def everything() -> tuple[int, int, int, int]:
    return Sitting.objects.count(), Seat.objects.count(), Hand.objects.count(), Player.objects.count()


@pytest.mark.django_db
def test_forget_deletes_only_sittings_untouched_for_more_than_the_days_given_with_their_seats_and_hands():
    old = Sitting.start("agram", ["A", "B", "C", "D"])
    play(old, [0, 1, 2])
    old.end_match()  # an abandoned hand: no winner
    untouched_since(old, 31)
    recent = Sitting.start("agram", ["E", "F", "G"])
    play(recent, [1, 1])
    untouched_since(recent, 29)
    fresh = Sitting.start("sink-sink", ["H", "I"])

    out = forget("--days", "30")

    assert out.strip() == "Forgot 1 sitting untouched for 30 days (4 hands)."
    assert rows_of(old) == (0, 0, 0)
    assert rows_of(recent) == (1, 3, 2) and rows_of(fresh) == (1, 2, 0)
    assert recent.check_totals() == []


@pytest.mark.django_db
def test_forget_counts_days_from_the_retention_setting_by_default(settings):
    settings.RETENTION_DAYS = 10
    gone, kept = Sitting.start("agram", ["A", "B"]), Sitting.start("agram", ["C", "D"])
    untouched_since(gone, 11)
    untouched_since(kept, 9)

    assert forget().strip() == "Forgot 1 sitting untouched for 10 days (0 hands)."
    assert rows_of(gone) == (0, 0, 0) and rows_of(kept) == (1, 2, 0)


@pytest.mark.django_db
def test_forget_removes_players_left_without_a_seat_and_keeps_players_seated_elsewhere():
    first = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    play(first, [0])
    rematch = first.rematch()  # the same three Player rows, seated again
    loner = Sitting.start("agram", ["Djibo", "Fati"])
    untouched_since(first, 400)
    untouched_since(loner, 400)

    forget("--days", "365")

    assert set(Player.objects.values_list("name", flat=True)) == {"Aïcha", "Boubacar", "Chaibou"}
    assert [seat.name for seat in rematch.table().seats] == ["Aïcha", "Boubacar", "Chaibou"]


@pytest.mark.django_db
def test_forget_leaves_a_kept_sitting_whose_rematch_was_forgotten_without_a_rematch():
    kept, forgotten = Sitting.start("agram", ["A", "B"]), Sitting.start("agram", ["C", "D"])
    Sitting.objects.filter(pk=kept.pk).update(next_sitting=forgotten)
    untouched_since(forgotten, 400)

    forget("--days", "365")

    kept.refresh_from_db()
    assert kept.next_sitting_id is None and rows_of(kept) == (1, 2, 0)


@pytest.mark.django_db
def test_forget_dry_run_lists_what_would_go_and_deletes_nothing():
    old = Sitting.start("agram", ["A", "B", "C", "D"])
    play(old, [0, 1, 2])
    untouched_since(old, 400)
    Sitting.start("agram", ["E", "F"])
    before = everything()

    out = forget("--days", "365", "--dry-run")

    assert everything() == before
    assert f"#{old.pk} agram" in out and "3 hands" in out
    assert out.splitlines()[-1] == (
        "Dry run: would forget 1 sitting untouched for 365 days (3 hands); nothing was deleted."
    )
    assert old.token not in out and old.watch_token not in out  # links open the table: never printed


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["--days 0", "RETENTION_DAYS=0"])
def test_forget_with_0_days_keeps_every_sitting(settings, how):
    sitting = Sitting.start("agram", ["A", "B"])
    play(sitting, [0, 1])
    untouched_since(sitting, 10_000)
    settings.RETENTION_DAYS = 0 if how == "RETENTION_DAYS=0" else 365
    before = everything()

    out = forget("--days", "0") if how == "--days 0" else forget()

    assert everything() == before
    assert "no sitting was forgotten" in out


@pytest.mark.django_db
def test_forget_refuses_negative_days():
    with pytest.raises(CommandError, match="--days must be 0"):
        forget("--days", "-1")


@pytest.mark.django_db
@pytest.mark.parametrize("days", ["800000", "99999999999"])
def test_forget_refuses_days_beyond_the_calendar_with_a_message(days):
    with pytest.raises(CommandError, match="--days must be at most"):
        forget("--days", days)


@pytest.mark.django_db
def test_forget_keeps_a_groups_old_matches_while_the_group_plays_on_and_keeps_its_members():
    from matches.models import Group

    group = Group.create("Friday", ["Ana", "Ben", "Idle"])  # Idle never played
    members = {p.name: p.pk for p in group.members()}
    old = group.start_match("agram", [members["Ana"], members["Ben"]])
    recent = group.start_match("agram", [members["Ana"], members["Ben"]])
    long_ago = timezone.now() - timedelta(days=400)
    Sitting.objects.filter(pk=old.pk).update(changed_at=long_ago)
    Group.objects.filter(pk=group.pk).update(changed_at=long_ago)
    forget("--days", "365")
    assert set(Sitting.objects.values_list("pk", flat=True)) == {old.pk, recent.pk}  # the group still plays
    Sitting.objects.filter(pk=recent.pk).update(changed_at=long_ago)
    out = forget("--days", "365")
    assert not Sitting.objects.exists() and not Group.objects.exists() and "Forgot 1 group" in out
    assert not Player.objects.exists()


@pytest.mark.django_db
def test_forget_never_deletes_a_groups_member_who_never_played():
    from matches.models import Group

    group = Group.create("Friday", ["Ana", "Ben", "Idle"])
    stale = Sitting.start("agram", ["X", "Y"])
    Sitting.objects.filter(pk=stale.pk).update(changed_at=timezone.now() - timedelta(days=400))
    forget("--days", "365")
    assert sorted(group.players.values_list("name", flat=True)) == ["Ana", "Ben", "Idle"]


# --- admin ----------------------------------------------------------------------------------------


@pytest.fixture
def operator(db) -> Client:
    """A superuser's client, logged in through the admin's own login form."""
    User.objects.create_superuser("operator", "operator@example.org", PASSWORD)
    client = Client()
    response = client.post("/admin/login/", {"username": "operator", "password": PASSWORD, "next": "/admin/"})
    assert response.status_code == 302 and response["Location"] == "/admin/", response.content[:500]
    return client


def listed(client: Client, **query: str) -> list[int]:
    """Primary keys of the sittings the admin's changelist shows for `query`."""
    response = client.get(CHANGELIST, query)
    assert response.status_code == 200
    return [sitting.pk for sitting in response.context["cl"].result_list]


@pytest.fixture
def three_sittings(db) -> list[Sitting]:
    return [Sitting.start("agram", [f"{n}1", f"{n}2"]) for n in "ABC"]


def test_a_superuser_sees_the_sittings_with_game_dates_state_and_hand_counts(operator):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    play(sitting, [2, 0, 1])
    ended = Sitting.start("sink-sink", ["A", "B"])
    ended.end_match()

    response = operator.get(CHANGELIST)

    assert response.status_code == 200
    rows = {s.pk: s for s in response.context["cl"].result_list}
    assert rows[sitting.pk].hand_count == 3 and rows[ended.pk].hand_count == 1
    page = response.content.decode()
    for text in ("Agram", "Sink-Sink", "in progress", "ended by a member", "Started at", "Changed at"):
        assert text.lower() in page.lower(), text


@pytest.mark.parametrize(
    "pasted",
    [
        "https://score.example.org/s/{token}/",
        "https://score.example.org/s/{token}/hands/3/",
        "  /s/{token}/poll/ ",
        "{token}",
        "https://score.example.org/w/{watch_token}/",
        "http://192.168.1.20:8000/w/{watch_token}/poll/",
    ],
)
def test_admin_search_finds_exactly_the_sitting_of_a_pasted_member_or_watch_link(operator, three_sittings, pasted):
    wanted = three_sittings[1]

    found = listed(operator, q=pasted.format(token=wanted.token, watch_token=wanted.watch_token))

    assert found == [wanted.pk]


def test_admin_search_with_a_link_to_no_sitting_finds_nothing(operator, three_sittings):
    assert listed(operator, q="https://score.example.org/s/AAAAAAAAAAAAAAAAAAAAAA/") == []
    assert listed(operator, q="agram") == []


def test_tokens_are_pulled_out_of_links_and_not_out_of_other_path_parts():
    token = "abcDEF123_-abcDEF123_-"
    assert tokens_in(f"https://h/s/{token}/hands.csv") == [token]
    assert tokens_in(f"https://h/w/{token}") == [token]
    assert tokens_in("https://h/start/agram-in-mali-long-slug/") == []
    assert tokens_in(f"https://h/s/{token}x{'y' * 40}/") == []  # longer than any token


def test_admin_change_page_shows_seats_and_hands_and_edits_nothing(operator):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    play(sitting, [2, 0, 1])
    page = f"{CHANGELIST}{sitting.pk}/change/"

    response = operator.get(page)

    assert response.status_code == 200
    shown = {
        formset.opts.model: [form.original for form in formset] for formset in response.context["inline_admin_formsets"]
    }
    assert [seat.name for seat in shown[Seat]] == ["Aïcha", "Boubacar", "Chaibou", "Djibo"]
    assert [(hand.number, hand.winner.name) for hand in shown[Hand]] == [(1, "Chaibou"), (2, "Aïcha"), (3, "Boubacar")]
    body = response.content.decode()
    controls = re.findall(r"<(?:input|select|textarea)\b[^>]*>", body)
    assert [c for c in controls if 'type="hidden"' not in c and 'id="nav-filter"' not in c] == []
    assert 'name="_save"' not in body and f"{CHANGELIST}{sitting.pk}/delete/" in body
    assert f"/s/{sitting.token}/" in body and f"/w/{sitting.watch_token}/" in body
    assert operator.post(page, {"game": "sink-sink"}).status_code == 403
    assert Sitting.objects.get(pk=sitting.pk).game == "agram"


def test_admin_cannot_add_a_sitting(operator):
    assert operator.get(f"{CHANGELIST}add/").status_code == 403


def test_admin_delete_view_removes_the_sitting_its_seats_hands_and_lone_players(operator):
    doomed = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    play(doomed, [2, 0, 1])
    other = Sitting.start("agram", ["Eve", "Fodé"])
    play(other, [1])
    delete = f"{CHANGELIST}{doomed.pk}/delete/"

    confirm = operator.get(delete)
    assert confirm.status_code == 200 and not confirm.context["protected"]
    assert "4 seats" in confirm.content.decode() and "3 hands" in confirm.content.decode()
    response = operator.post(delete, {"post": "yes"})

    assert response.status_code == 302 and response["Location"] == CHANGELIST
    assert rows_of(doomed) == (0, 0, 0)
    assert set(Player.objects.values_list("name", flat=True)) == {"Eve", "Fodé"}
    assert rows_of(other) == (1, 2, 1)


def test_admin_delete_selected_action_removes_the_chosen_sittings_only(operator, three_sittings):
    for sitting in three_sittings:
        play(sitting, [0, 1])
    chosen = [three_sittings[0].pk, three_sittings[2].pk]

    response = operator.post(CHANGELIST, {"action": "delete_selected", "_selected_action": chosen, "post": "yes"})

    assert response.status_code == 302
    assert list(Sitting.objects.values_list("pk", flat=True)) == [three_sittings[1].pk]
    assert Hand.objects.count() == 2 and Seat.objects.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/admin/", CHANGELIST])
def test_anonymous_visitor_is_sent_to_the_admin_login(client, path):
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


@pytest.mark.django_db
def test_staff_who_are_not_superusers_cannot_enter_the_admin(client):
    sitting = Sitting.start("agram", ["A", "B"])
    user = User.objects.create_user("helper", password=PASSWORD, is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=["view_sitting", "delete_sitting"]))
    client.force_login(user)
    for path in ("/admin/", CHANGELIST, f"{CHANGELIST}{sitting.pk}/delete/"):
        assert client.get(path).status_code == 302, path
    assert client.post(f"{CHANGELIST}{sitting.pk}/delete/", {"post": "yes"}).status_code == 302
    assert Sitting.objects.filter(pk=sitting.pk).exists()


@pytest.mark.django_db
def test_a_logged_in_user_who_is_not_staff_cannot_enter_the_admin(client):
    Sitting.start("agram", ["A", "B"])
    user = User.objects.create_user("player", password=PASSWORD)
    client.force_login(user)

    for path in ("/admin/", CHANGELIST):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), path
    refused = client.post("/admin/login/", {"username": "player", "password": PASSWORD, "next": "/admin/"})
    assert refused.status_code == 200 and "staff account" in refused.content.decode()
