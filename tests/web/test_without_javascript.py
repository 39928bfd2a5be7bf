"""Everything works without JavaScript: a phone's browser with it off (tests/web/plain_phone.py: the page's
own forms, posted as such a browser posts them, each redirect followed) plays a demo match, taps, undoes
with a second tap that says what it undoes, adds and removes start rows up to the game's maximum, starts
a match of N hands, seats a group's table, records Cat Tê's sweep with its Aces, finds the result to
share in its box, and never shows the note that only a plain-HTTP address needs. What only a browser
shows (layout, htmx, the service worker): tests/browser/."""

import pytest

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group, Sitting

from tests.web.plain_phone import PlainPhone

pytestmark = pytest.mark.django_db
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo", "Fatouma", "Garba"]


def test_the_tap_flow_works_without_javascript():
    phone = PlainPhone().get("/")
    phone.press("Try a demo match")
    assert phone.redirects and phone.url.startswith("/s/")
    assert "Chaibou deals, Djibo leads." in phone.words()
    table = phone.url
    phone.press("Djibo")
    assert phone.redirects == [table] and "Djibo deals, Aïcha leads." in phone.words()
    phone.press("Yes, undo hand 2")  # inside "Undo hand 2", which the phone opens by itself
    assert phone.redirects == [table] and "Chaibou deals, Djibo leads." in phone.words()
    phone.get("/start/sink-sink/")
    phone.press("Add a player")  # the form posts back
    assert len(phone.inputs("player_")) == 5
    phone.press("Remove Player 5")
    assert len(phone.inputs("player_")) == 4


def test_undo_takes_a_second_tap_that_says_what_it_undoes_without_javascript():
    sitting = Sitting.start("agram", NAMES[:4])
    sitting.record_hand(1, 2)
    phone = PlainPhone().get(sitting.get_absolute_url())
    (undo,) = phone.buttons("Yes, undo hand 1")
    panel = undo.ancestor("details")  # a mis-tap on "Undo hand 1" only opens this: nothing is undone
    assert "undo" in panel.attrs["class"].split() and "open" not in panel.attrs
    (summary,) = [child for child in panel.walk() if child.tag == "summary"]
    assert summary.text() == "Undo hand 1" and "Hand 1: Chaibou won it. Undo it?" in panel.text()
    assert sitting.hands.count() == 1
    phone.press("Yes, undo hand 1")
    assert "Hand 1 undone: tap its winner again." in phone.words()
    assert sitting.hands.count() == 0


def test_add_stops_at_five_for_agram_without_javascript():
    phone = PlainPhone().get("/start/agram/")
    phone.press("Add a player")
    assert len(phone.inputs("player_")) == 5
    assert phone.buttons("Add a player") == []
    assert "Agram is played by at most 5" in phone.words()


def test_a_three_player_letzter_stich_after_12_hands_without_javascript():
    phone = PlainPhone().get("/start/letzter-stich/")
    assert "Letzter Stich: 3 to 6 players" in phone.words()
    (hands,) = phone.inputs("end_target_hands")
    assert hands.attrs["value"] == "12"
    names = {f"player_{row}": name for row, name in enumerate(["Aïcha", "Boubacar", "Chaibou"], start=1)}
    phone.press("Start the match", fill=names, check={"end_kind": "hands"})
    assert phone.redirects and "The match ends after 12 hands." in phone.words()
    sitting = Sitting.objects.get()
    assert [seat.name for seat in sitting.table().seats] == ["Aïcha", "Boubacar", "Chaibou"]


def seated(phone: PlainPhone) -> list[str]:
    """The names at the table, in seating order."""
    table = [e for e in phone.tree.root.walk() if e.tag == "ol" and "seated" in e.attrs.get("class", "").split()]
    items = [item for item in table[0].walk() if item.tag == "li"] if table else []
    return [next(e for e in item.walk() if e.tag == "bdi").text() for item in items]


def test_the_new_match_form_works_without_javascript():
    group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    phone = PlainPhone().get(f"/g/{group.token}/new/agram/")
    assert seated(phone) == []
    phone.press("Chaibou")
    phone.press("Aïcha")
    phone.press_enter("newcomer", fill={"newcomer": "Zeinab"})  # Enter in the newcomer field adds them
    assert seated(phone) == ["Chaibou", "Aïcha", "Zeinab"]
    phone.press("Move Aïcha up")
    assert seated(phone) == ["Aïcha", "Chaibou", "Zeinab"]
    phone.press("Start the match")
    assert phone.redirects and phone.url.startswith("/s/")
    sitting = Sitting.objects.get()
    assert [s.name for s in sitting.table().seats] == ["Aïcha", "Chaibou", "Zeinab"]
    assert sitting.group_id == group.pk


def test_cat_tes_sweep_is_recorded_with_its_aces_without_javascript():
    sitting = Sitting.start("cat-te", NAMES[:6])
    phone = PlainPhone().get(sitting.get_absolute_url())
    (record,) = phone.buttons("Record: Garba wins")
    sweep = record.ancestor("details")  # the sweep's own question, opened under its answer
    (answer,) = [child for child in sweep.walk() if child.tag == "summary"]
    assert answer.text().startswith("Sweep of the first four tricks")
    assert "Sweep: who held back an Ace of the suit led (each pays 1 chip more)?" in sweep.text()
    (aicha,) = [label for label in sweep.walk() if label.tag == "label" and label.text() == "Aïcha"]
    (box,) = [e for e in aicha.walk() if e.tag == "input"]
    phone.press("Record: Garba wins", check={box.attrs["name"]: box.attrs["value"]})
    assert "Hand 1 recorded: Garba (sweep of the first four tricks; Aïcha held back an Ace)." in phone.words()
    assert sitting.hands.get().extras == {"how": "sweep", "aces": [0]}


def test_without_javascript_the_result_to_share_is_in_its_box():
    sitting = Sitting.start("cat-te", ["Ben", "Cal", "Dia"], MatchEnd(MatchEndKind.HANDS, 1))
    sitting.record_hand(1, 0, {"how": "last"})
    phone = PlainPhone().get(sitting.get_absolute_url())
    box = phone.labelled("The result, to send to the group (select it and copy)")
    assert box.tag == "textarea" and "Dia owes Ben the worth of 1 chip." in box.text()
    assert "hidden" not in box.parent.attrs
    (share,) = [e for e in phone.tree.root.walk() if e.tag == "button" and e.text() == "Share result"]
    assert "hidden" in share.attrs  # shown by the page's script only where the phone can share or copy


def test_without_javascript_the_note_for_plain_http_addresses_stays_hidden():
    phone = PlainPhone().get("/")
    (note,) = [e for e in phone.tree.root.walk() if e.attrs.get("id") == "plain-http"]
    assert "cannot open or reload it" in note.text()
    assert "hidden" in note.attrs  # shown by the page's script on a page that is no secure context, until seen



def test_the_note_for_plain_http_addresses_is_not_on_a_watch_screen_nor_an_error_page():
    """It says that taps wait on this phone: a watcher makes none, and an error page is no place to learn it."""
    sitting = Sitting.start("agram", ["Ben", "Cal", "Dia"])
    member = PlainPhone().get(sitting.get_absolute_url())
    assert any(e.attrs.get("id") == "plain-http" for e in member.tree.root.walk())
    for address in (f"/w/{sitting.watch_token}/", "/s/" + "x" * 22 + "/"):
        phone = PlainPhone().get(address)
        assert phone.response.status_code in (200, 404)
        assert not any(e.attrs.get("id") == "plain-http" for e in phone.tree.root.walk()), address