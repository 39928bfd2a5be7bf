"""Every page a phone opens names itself in one top heading: a screen reader's first landmark, shown or not."""

import re

import pytest

from matches.models import Group

pytestmark = pytest.mark.django_db
H1 = re.compile(r"<h1[\s>]")


def test_every_page_has_exactly_one_top_heading(client):
    group = Group.create("Vendredi", ["Ana", "Ben", "Cleo"])
    sitting = group.start_match("fapfap", [p.pk for p in group.members()], stake_amount=100, stake_label="CFA")
    sitting.record_hand(1, 0, {"multiplier": "1"})
    player = group.members()[0].pk
    s, w = f"/s/{sitting.token}/", f"/w/{sitting.watch_token}/"
    g, gw = f"/g/{group.token}/", f"/gw/{group.watch_token}/"
    pages = [
        "/", "/start/", "/start/agram/", "/groups/new/", "/groups/import/",
        s, f"{s}share/", f"{s}end/", f"{s}hands/", f"{s}hands/1/", f"{s}seats/", w,
        g, f"{g}share/", f"{g}new/", f"{g}new/agram/", f"{g}players/{player}/", f"{g}matches/", f"{g}tab/", f"{g}stats/",
        gw, f"{gw}matches/", f"{gw}stats/",
    ]  # fmt: skip
    counts = {page: len(H1.findall(client.get(page).content.decode())) for page in pages}
    assert {page: count for page, count in counts.items() if count != 1} == {}
