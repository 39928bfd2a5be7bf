"""What a group's screens say, in English and French, as a phone reads them (tests/web/plain_phone.py):
each step of saving a finished match into a new group and starting the next with a newcomer; the
seating hint as names are seated; a group just made showing its link open, folded on later visits; the
top bar naming the group. How the screens look on a phone: tests/browser/test_group_screens.py."""

import re

import pytest

from matches.models import Group, Sitting

from tests.web.plain_phone import Element, PlainPhone

pytestmark = pytest.mark.django_db
LONG = "Abdourahamane Ousmane Maïnassara Ibrahim"  # 40 characters
LANGUAGES = ["en", "fr"]

WORDS = {
    "en": {
        "save": "Save into a group",
        "group name": "The group's name",
        "save new": "Save into a new group",
        "new match": "New match",
        "newcomer": "Someone new (joins the group)",
        "add": "Add",
        "up": "Move Zeinab up",
        "out": "Boubacar does not play",
        "start": "Start the match",
        "share": "Bring more phones to this group",
        "back": f"Back to the group: {LONG}",
        "deals": "Aïcha deals",
    },
    "fr": {
        "save": "Enregistrer dans un groupe",
        "group name": "Nom du groupe",
        "save new": "Enregistrer dans un nouveau groupe",
        "new match": "Nouvelle partie",
        "newcomer": "Quelqu’un de nouveau (rejoint le groupe)",
        "add": "Ajouter",
        "up": "Monter Zeinab",
        "out": "Boubacar ne joue pas",
        "start": "Commencer la partie",
        "share": "Ajouter d’autres téléphones au groupe",
        "back": f"Retour au groupe\u00a0: {LONG}",
        "deals": "Aïcha donne",
    },
}
TAP_FIRST = {"en": "Tap whoever deals first", "fr": "Touchez celui qui donne en premier"}


def having(phone: PlainPhone, tag: str, css_class: str = "", **attrs) -> list[Element]:
    return [
        e
        for e in phone.tree.root.walk()
        if e.tag == tag
        and (not css_class or css_class in e.attrs.get("class", "").split())
        and all(e.attrs.get(key) == value for key, value in attrs.items())
    ]


def seated(phone: PlainPhone) -> list[str]:
    tables = having(phone, "ol", "seated")
    items = [item for item in tables[0].walk() if item.tag == "li"] if tables else []
    return [next(e for e in item.walk() if e.tag == "bdi").text() for item in items]


@pytest.mark.parametrize("language", LANGUAGES)
def test_save_a_finished_match_into_a_group_then_start_the_next_with_a_newcomer_says_each_step(language):
    words = WORDS[language]
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou"])
    sitting.record_hand(1, 2)
    sitting.end_match()
    phone = PlainPhone(language).get(sitting.get_absolute_url())
    phone.follow(words["save"])
    assert phone.url.endswith("/group/")
    phone.press(words["save new"], fill={phone.labelled(words["group name"]).attrs["name"]: LONG})
    assert re.fullmatch(r"/g/[^/]+/", phone.url)
    group = Group.objects.get()
    assert [p.name for p in group.members()] == ["Aïcha", "Boubacar", "Chaibou"]
    (share,) = having(phone, "details", "share")
    assert "open" in share.attrs and words["share"] in share.text()  # a group just made shows its links
    phone.follow(words["new match"])
    assert phone.url.endswith("/new/")
    (agram,) = [a for a in having(phone, "a") if a.attrs.get("href", "").endswith("/new/agram/")]
    phone.get(agram.attrs["href"])
    assert seated(phone) == ["Aïcha", "Boubacar", "Chaibou"]  # the last table, ready
    phone.press(words["add"], fill={phone.labelled(words["newcomer"]).attrs["name"]: "Zeinab"})
    assert seated(phone) == ["Aïcha", "Boubacar", "Chaibou", "Zeinab"]
    phone.press(words["up"])
    assert seated(phone) == ["Aïcha", "Boubacar", "Zeinab", "Chaibou"]
    phone.press(words["out"])
    assert seated(phone) == ["Aïcha", "Zeinab", "Chaibou"]
    phone.press(words["start"])
    assert re.fullmatch(r"/s/[^/]+/", phone.url) and words["deals"] in phone.words()
    new = Sitting.objects.exclude(pk=sitting.pk).get()
    assert new.group_id == group.pk and [s.name for s in new.table().seats] == ["Aïcha", "Zeinab", "Chaibou"]
    assert "Zeinab" in [p.name for p in group.members()]
    new.end_match()
    phone.get(phone.url)
    phone.follow(words["back"])
    assert phone.url == group.get_absolute_url()
    (matches,) = having(phone, "ul", "group-matches") or having(phone, "ol", "group-matches")
    assert len([item for item in matches.walk() if item.tag == "li"]) == 2


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_seating_hint_says_what_each_state_offers_as_names_are_tapped(language):
    group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou"])
    phone = PlainPhone(language).get(f"/g/{group.token}/new/agram/")

    def hint() -> str:
        (found,) = having(phone, "p", id="seating-hint")
        return found.text()

    nobody = hint()
    assert nobody.startswith(TAP_FIRST[language])
    phone.press("Chaibou")
    assert len(seated(phone)) == 1
    some = hint()
    assert TAP_FIRST[language] not in some and some != nobody
    phone.press("Aïcha")
    assert len(seated(phone)) == 2 and hint() == some  # still names to tap: the same offer
    phone.press("Boubacar")
    assert len(seated(phone)) == 3 and having(phone, "div", "pick") == []
    everyone = hint()
    assert everyone not in (nobody, some) and TAP_FIRST[language] not in everyone
    if language == "en":
        assert "Tap a name below" in some and "Tap a name" not in everyone


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_group_just_made_shows_its_link_where_the_message_says(language):
    phone = PlainPhone(language).get("/groups/new/")
    (form,) = having(phone, "form", "new-group")
    (make,) = [button for button in form.walk() if button.tag == "button" and "primary" in button.attrs["class"]]
    phone.send(form, make, {"name": LONG, "players": "Aïcha\nBoubacar"}, {})
    assert re.fullmatch(r"/g/[^/]+/", phone.url)
    group = Group.objects.get()
    (link,) = having(phone, "input", id="member-link")
    assert link.attrs["value"].endswith(group.get_absolute_url())
    assert link.ancestor("details").attrs.get("id") == "share" and "open" in link.ancestor("details").attrs
    phone.get(phone.url)  # later visits: the links folded away again, a link to them inside
    (share,) = having(phone, "details", id="share")
    assert "open" not in share.attrs and not having(phone, "input", id="member-link")
    phone.get(f"{phone.url}share/")  # where that link leads a phone without JavaScript
    (link,) = having(phone, "input", id="member-link")
    assert link.attrs["value"].endswith(group.get_absolute_url()) and "open" in link.ancestor("details").attrs


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_top_bar_names_the_group(language):
    group = Group.create(LONG, ["Aïcha", "Boubacar"])
    phone = PlainPhone(language)
    for path, after in ((f"/g/{group.token}/", ""), (f"/gw/{group.watch_token}/", " · ")):
        phone.get(path)
        (bar,) = having(phone, "header", "bar")
        (name,) = [e for e in bar.walk() if "game" in e.attrs.get("class", "").split()]
        assert [e.text() for e in name.walk() if e.tag == "bdi"] == [LONG]
        assert name.text().startswith(LONG + after)
