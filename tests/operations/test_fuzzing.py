"""Bad bytes anywhere never reach a 5xx: every address, method, query, header, body and form field of the
app, sent on bare sockets (a phone or an attacker can send bytes that urllib refuses to) to the
production-style server: gunicorn, uvicorn and scorekeeper/asgi.py's dispatch, where the Django test
client's answers may differ. Each answer is a clear 4xx or an ordinary 2xx/3xx, and a refused request
changes nothing in the database."""

from __future__ import annotations

import pytest
from django.db import connection
from django.urls import Resolver404, URLResolver, get_resolver, resolve

from matches.models import Group, Sitting
from matches.web.sessions import as_written
from tests import fuzz_inputs as bad
from tests.fuzz_inputs import World
from tests.fuzzer import Fuzzer, among, fan_out, fingerprint, report, signed_session, together
from tests.raw_http import form
from tests.servers import gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.engine]
UNLIMITED = {  # thousands of requests from one address, a trusted proxy's: its X-Forwarded-For garbage is read
    **{name: "1000000/m" for name in ("TAP_RATE_LIMIT", "TAP_ADDRESS_RATE_LIMIT", "START_RATE_LIMIT")},
    "START_ADDRESS_RATE_LIMIT": "1000000/m",
    "TRUSTED_PROXIES": "127.0.0.1",
}
PLAYERS = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


@pytest.fixture(scope="module")
def server(tmp_path_factory, django_db_setup):
    """One production-style server (two workers) for the module's tests, on the test database."""
    with gunicorn(tmp_path_factory.mktemp("fuzz"), workers=2, **UNLIMITED) as url:
        yield url


@pytest.fixture
def world(server) -> World:
    """A sitting with a hand recorded, a Cat Tê sitting (chips), a group with players and finished
    matches (a Fapfap one with a stake in dong, so that the figures count money), as phones make them."""
    sitting = Sitting.start("agram", PLAYERS)
    sitting.record_hand(1, 0)
    chips = Sitting.start("cat-te", PLAYERS)
    group = Group.create("Jeudi", [*PLAYERS, "Élodie"])
    members = [player.pk for player in group.members().order_by("pk")]
    played = group.start_match("fapfap", members[:3], stake_amount=500, stake_label="₫")
    played.record_hand(1, 1, {"multiplier": "2"})
    played.end_match()
    played = group.start_match("agram", members[1:])
    played.record_hand(1, 0)
    played.end_match()
    world = World(sitting.token, sitting.watch_token, chips.token, group.token, group.watch_token, members[0])
    world.static = Fuzzer(server).static
    return world


def test_a_poll_address_with_characters_outside_latin_1_answers_404(server):
    fuzzer = Fuzzer(server)
    for path in ("/s/%F0%9F%82%A1/poll/", "/s/%F0%9F%82%A1%F0%9F%82%A1abcdefghijklmnop/poll/", "/w/%F0%9F%82%A1/poll/"):
        for headers in ([], [(b"HX-Request", b"true")], [(b"HX-Request", b"true"), (b"HX-Target", b"table")]):
            for query in ("", "?v=1", "?v=%F0%9F%82%A1"):
                answer = fuzzer.send("GET", path + query, headers)
                assert answer.status == 404, (path + query, headers, answer.status, answer.body[:300])
                assert b"No match at this link" in answer.body


def test_every_address_method_and_bad_segment_answers_without_a_5xx_or_a_change(server, world):
    before = fingerprint()

    def each_method(route: str):
        def job(fuzzer: Fuzzer) -> None:
            fuzzer.send("GET", route)
            fuzzer.send("HEAD", route)
            for method in bad.OTHER_METHODS:
                fuzzer.send(method, route, fuzzer.form_headers(), b"x=1")

        return job

    def each_segment(template: str):
        def job(fuzzer: Fuzzer) -> None:
            for label, segment in bad.BAD_SEGMENTS:
                target = template.encode().replace(b"{}", segment)
                fuzzer.send("GET", target, what=label, stream="events" in template)
                if "poll" in template or template == "/s/{}/":
                    fuzzer.send("GET", target, [(b"HX-Request", b"true"), (b"HX-Target", b"table")], what=label)

        return job

    def each_stream_method(route: str):
        def job(fuzzer: Fuzzer) -> None:
            for method in ("GET", "HEAD", *bad.OTHER_METHODS):
                fuzzer.send(method, route, fuzzer.form_headers(), b"x=1" if method != "HEAD" else b"", stream=True)

        return job

    streams = [each_stream_method(route) for route in world.streams()]
    jobs = [*map(each_method, world.routes()), *map(each_segment, world.templates()), *streams]
    failures, sent = fan_out(server, jobs)
    assert not failures, report(failures, sent)
    assert fingerprint() == before, "a request other than a POST changed the database"


def test_every_bad_query_answers_without_a_5xx_or_a_change(server, world):
    before = fingerprint()

    def any_query(route: str):
        def job(fuzzer: Fuzzer) -> None:
            for label, query in bad.ANY_QUERY:
                fuzzer.send("GET", route.encode() + query, what=label, stream="/events/" in route)

        return job

    def read_keys(route: str, keys: list[str]):
        def job(fuzzer: Fuzzer) -> None:
            ways = ([], [(b"HX-Request", b"true")]) if "/poll/" in route else ([],)  # a poll reads ?v= for htmx
            for label, value in bad.BAD_VALUES:
                query = b"?" + form([(key, value) for key in keys])
                for headers in ways:
                    fuzzer.send("GET", route.encode() + query, headers, what=label, stream="/events/" in route)

        return job

    jobs = [*map(any_query, [*world.routes(), *world.streams()]), *(read_keys(*reader) for reader in world.readers())]
    failures, sent = fan_out(server, jobs)
    assert not failures, report(failures, sent)
    assert fingerprint() == before, "a GET changed the database"


def test_every_bad_header_content_type_and_body_answers_without_a_5xx_or_a_change(server, world):
    """The pages and streams with each bad header on two phones; on a third, watched, the POSTs: each bad
    header, content type, multipart body, chunked and oversized body, and a Content-Length that lies."""
    tap, add = f"/s/{world.token}/tap/", f"/g/{world.group}/players/"

    def pages(label: str, headers: list):
        def job(fuzzer: Fuzzer) -> None:
            for page in ("/", f"/s/{world.token}/", f"/s/{world.token}/poll/?v=1", f"/g/{world.group}/", world.static):
                fuzzer.send("GET", page, headers, what=label)
            for stream in world.streams()[::2]:
                fuzzer.send("GET", stream, headers, what=label, stream=True)

        return job

    def changes(fuzzer: Fuzzer) -> None:
        for label, headers in bad.BAD_HEADERS:
            fuzzer.post(tap, [("number", "2"), ("winner", "9")], what=label, headers=headers)
            fuzzer.post(add, [("name", "")], what=label, headers=headers)
        refused = form([("csrfmiddlewaretoken", fuzzer.csrf), ("number", "2"), ("winner", "9"), ("name", "")])
        for target in (tap, "/groups/new/", "/i18n/setlang/", "/groups/import/"):
            for content_type in bad.BAD_CONTENT_TYPES:
                fuzzer.send("POST", target, [(b"Content-Type", content_type)], refused, what=repr(content_type))
            for label, parts in bad.BAD_MULTIPARTS:
                body = bad.multipart([(b"csrfmiddlewaretoken", fuzzer.csrf.encode(), b""), *parts])
                fuzzer.send("POST", target, [(b"Content-Type", b"multipart/form-data; boundary=B")], body, what=label)
            chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(refused), refused)  # no Content-Length: asgi.py adds one
            fuzzer.send("POST", target, [(b"Transfer-Encoding", b"chunked")], chunked, what="chunked")
        for target in (tap, "/groups/new/"):
            fuzzer.once("POST", target, [(b"Content-Length", b"%d" % (len(refused) - 9))], refused, "length short")
            fuzzer.once("POST", target, [(b"Content-Length", b"%d" % (len(refused) + 9))], refused, "length long")
            for size in (1_100_000, 3_000_000):  # past asgi.py's buffer; past Django's 2.5 MB
                fuzzer.post(target, [("name", "\U0001f0a1" * (size // 12))], what=f"{size:,} bytes")

    failures, sent = fan_out(server, [pages(*header) for header in bad.BAD_HEADERS], threads=2, beside=changes)
    assert not failures, report(failures, sent)


def table_forms(world: World) -> tuple[list, tuple[int, ...]]:
    """The POST routes that change only their own group-less sittings, each as (address, the fields its page
    posts, the fields to fuzz), and those sittings' ids. The hand is 1 where a change of it is allowed."""
    s, c = world.token, world.chips_token
    stamp = Sitting.objects.get(token=s).hands.get(number=1).stamp
    eighty = Sitting.start("eighty-three", PLAYERS[:3])
    fapfap = Sitting.start("fapfap", PLAYERS[:3], stake_amount=100)
    ended, rotated = Sitting.start("agram", PLAYERS[:2]), Sitting.start("agram", PLAYERS[:2])
    seated = Sitting.start("agram", PLAYERS[:4])
    routes = [
        (f"/s/{s}/hands/1/", [("number", "1"), ("winner", "2"), ("stamp", stamp)], ["number", "winner", "stamp"]),
        (f"/s/{s}/undo/", [("number", "1"), ("stamp", stamp)], ["number", "stamp"]),
        (f"/s/{s}/tap/", [("number", "1"), ("winner", "1")], ["number", "winner", "stamp"]),
        (f"/s/{c}/tap/", [("number", "1"), ("winner", "1"), ("how", "last")], ["how", "aces"]),
        (f"/s/{eighty.token}/tap/", [("number", "1"), ("winner", "1"), ("ace", "1")], ["ace", "last", "bonus"]),
        (f"/s/{fapfap.token}/tap/", [("number", "1"), ("winner", "1"), ("multiplier", "2")], ["multiplier"]),
        (f"/s/{c}/chips/", [("seen", "0")], ["seen"]),
        (f"/s/{s}/me/", [("seat", "2")], ["seat"]),
        (f"/s/{ended.token}/end/", [("number", "1")], ["number", "stamp"]),
        (f"/s/{rotated.token}/links/", [], []),
        (f"/s/{seated.token}/seats/", [("change", "rename"), ("seat", "1"), ("name", PLAYERS[0])], ["change", "seat", "name"]),
    ]
    tokens = [s, c, eighty.token, fapfap.token, ended.token, rotated.token, seated.token]
    return routes, tuple(Sitting.objects.filter(token__in=tokens).values_list("pk", flat=True))


def group_forms(world: World) -> tuple[list, int]:
    """The POST routes that change groups, their players and matches (and a match saved into one), and the
    id of the group-less sitting they save."""
    g, p = world.group, world.player
    saved = Sitting.start("agram", PLAYERS[:2])
    saved.end_match()
    other = Group.create("Samedi", PLAYERS[:3])
    a, b, _ = (player.pk for player in other.members().order_by("pk"))
    seats = [("seat", f"m{p}"), ("seat", "n:Zoé"), ("action", "start"), ("newcomer", ""), ("end_kind", "hands"),
             ("end_target_hands", "10")]  # fmt: skip
    routes = [
        (f"/s/{saved.token}/group/", [("group", "new"), ("name", "")], ["group", "name", "time_zone"]),
        (f"/g/{g}/players/", [("name", "")], ["name"]),
        (f"/g/{g}/players/{p}/rename/", [("name", "Aïcha")], ["name"]),
        (f"/g/{other.token}/players/{a}/remove/", [], []),
        (f"/g/{other.token}/players/{b}/erase/", [("confirm", "no")], ["confirm"]),
        ("/groups/new/", [("name", ""), ("players", "Aïcha\nBoubacar")], ["name", "players", "time_zone"]),
        (f"/g/{g}/new/agram/", seats, ["seat", "action", "newcomer", "end_kind", "end_target_hands"]),
        ("/demo/", [("time_zone", "Europe/Paris")], ["time_zone"]),
        (f"/g/{other.token}/links/", [], []),
    ]
    return routes, saved.pk


def new_match_forms() -> list:
    """The POST routes that start group-less matches (and the language switcher, which changes no row)."""
    rematched = Sitting.start("agram", PLAYERS[:2])
    start = [("player_1", "Aïcha"), ("player_2", "Boubacar"), ("player_3", "Chaibou"), ("end_kind", "wins"),
             ("end_target_wins", "3"), ("action", "start"), ("time_zone", "Europe/Paris")]  # fmt: skip
    return [
        (f"/s/{rematched.token}/rematch/", [], ["open", "csrfmiddlewaretoken"]),
        ("/start/agram/", start, ["player_1", "player_2", "end_kind", "end_target_wins", "action", "time_zone"]),
        ("/start/agram/", [*start[:3], ("end_kind", "hands")], ["end_target_hands", "end_target"]),
        ("/start/cat-te/", [*start, ("starting_chips", "20")], ["starting_chips"]),
        ("/start/fapfap/", [*start, ("stake_amount", "100"), ("stake_label", "F")], ["stake_amount", "stake_label"]),
        ("/i18n/setlang/", [("language", "fr"), ("next", "/")], ["language", "next"]),
    ]


def variants(base: list[tuple[str, str]], name: str) -> list[tuple[str, list]]:
    """`base` with field `name` given each bad value, left out, and given twice (a good and a bad value)."""
    good = next((value for key, value in base if key == name), "1")
    others = [(key, value) for key, value in base if key != name]
    found = [(label, [*others, (name, value)]) for label, value in bad.BAD_VALUES]
    found += [("missing", others), ("repeated, bad last", [*others, (name, good), (name, b"\xff")])]
    return [*found, ("repeated, bad first", [*others, (name, "\x00"), (name, good)])]


def fuzz_forms(fuzzer: Fuzzer, routes: list) -> None:
    """Each field of each route given each bad value, as a plain form and as htmx sends it, by turns."""
    htmx = [(), ((b"HX-Request", b"true"), (b"HX-Target", b"table"))]
    for route, base, fuzzed in routes:
        for name in fuzzed:
            for turn, (label, fields) in enumerate(variants(base, name)):
                if name == "csrfmiddlewaretoken":
                    fuzzer.send("POST", route, body=form(fields), what=f"{name}: {label}")
                else:
                    fuzzer.post(route, fields, what=f"{name}: {label}", headers=htmx[turn % 2])
        for label, name in bad.BAD_NAMES:  # fields no form has, beside the form's own
            fuzzer.post(route, [*base, (name, "Zoé")], what=f"field named {label}")


def test_every_form_field_with_bad_values_or_names_answers_without_a_5xx_and_refusals_change_nothing(server, world):
    """Three phones at once, each on routes that change their own rows, watching those rows: the sittings'
    own routes, the groups' (and their players'), and the new group-less matches' (their players unwatched)."""
    tables, ids = table_forms(world)
    groups, saved = group_forms(world)
    others = (*ids, saved)
    watches = [
        (tables, lambda: fingerprint(f"id IN {among(ids)}", ids, groups=False)),
        (groups, lambda: fingerprint("group_id IS NOT NULL OR id = %s", (saved,), players="group_id IS NOT NULL")),
        (new_match_forms(), lambda: fingerprint(f"group_id IS NULL AND id NOT IN {among(others)}", others, False)),
    ]
    phones = [Fuzzer(server, state) for _, state in watches]

    def run(fuzzer: Fuzzer, routes: list) -> None:
        try:
            fuzz_forms(fuzzer, routes)
        except Exception as error:  # noqa: BLE001 - a phone that stopped is a failure, not a silent pass
            fuzzer.failures.append(f"the fuzz stopped: {error!r}")
        finally:
            connection.close()  # this thread's own

    together([(run, (phone, routes)) for phone, (routes, _) in zip(phones, watches)])
    failures = [failure for phone in phones for failure in phone.failures]
    assert not failures, report(failures, sum(phone.sent for phone in phones))


def test_a_session_signed_by_the_server_in_another_shape_is_read_as_far_as_it_is_the_apps(server, world):
    s = world.token
    remembered = Fuzzer(server).send("GET", "/", [(b"Cookie", signed_session({"sittings": [s], "phone": "k3Xa"}))])
    assert f'href="/s/{s}/"'.encode() in remembered.body  # the key is the server's: the session is read
    shapes = [None, [1, 2], "text", 5, {"sittings": 5}, {"sittings": [5, None, {"a": 1}, "x" * 5000]},
              {"sittings": "abc", "groups": 3}, {"groups": [None, "\x00"]}, {"seats": []}, {"seats": {s: "x"}},
              {"seats": {s: 10**30}}, {"seats": {s: -5}}, {"seats": {s: True}}, {"seats": {s: 60}}, {"phone": []},
              {"phone": {"a": 1}}, {"phone": "x" * 5000}, {"phone": "\x00"}, {"demo_group": "x"},
              {"demo_group": 10**30}, {"_auth_user_id": "x"}, {"_auth_user_id": 10**30},
              {"_auth_user_id": "9" * 5000}]  # fmt: skip

    def pages(shape: object):
        def job(fuzzer: Fuzzer) -> None:
            for page in ("/", f"/s/{s}/", f"/g/{world.group}/", "/admin/"):
                fuzzer.send("GET", page, [(b"Cookie", signed_session(shape))], what=repr(shape)[:60])

        return job

    def changes(fuzzer: Fuzzer) -> None:
        for shape in shapes:
            what, headers = repr(shape)[:60], [(b"Cookie", signed_session(shape))]
            fuzzer.post(f"/s/{s}/tap/", [("number", "2"), ("winner", "2")], what, headers)  # recorded by its phone
            fuzzer.post(f"/s/{s}/undo/", [("number", "2"), ("stamp", "AAAAAAAA")], what, headers)
            fuzzer.post(f"/s/{s}/me/", [("seat", "1")], what, headers)
            fuzzer.post(f"/g/{world.group}/players/", [("name", "")], what, headers)
            if not isinstance(shape, dict) or "demo_group" in shape:  # (a demo costs: a group with 3 matches)
                fuzzer.post("/demo/", [], what, headers)

    failures, sent = fan_out(server, [pages(shape) for shape in shapes], threads=2, beside=changes)
    assert not failures, report(failures, sent)


# --- in this process (Django's test client, no server) ---------------------------------------------


def every_route() -> set[str]:
    """Every address pattern of the app's URLconf; the admin's own pages as one."""
    found = set()

    def walk(patterns: list, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk([] if route == "admin/" else pattern.url_patterns, route)
                found.add(route) if route == "admin/" else None
            else:
                found.add(route)

    walk(get_resolver().url_patterns, "")
    return found


def test_the_fuzz_sends_something_to_every_address_of_the_app():
    world = World("a" * 22, "b" * 22, "c" * 22, "d" * 22, "e" * 22, 1, "/static/app.css")
    reached = {"admin/"}
    for path in [*world.routes(), *world.streams()]:
        try:
            reached.add(resolve(path).route)
        except Resolver404:  # the static files, and the address of nothing
            pass
    assert every_route() <= reached, "not fuzzed: add to tests/fuzz_inputs.py World.routes()"



def test_a_player_row_numbered_with_5000_digits_is_no_row_of_the_start_form(client):
    data = {"player_1": "Aïcha", "player_2": "Boubacar", "end_kind": "wins", "end_target_wins": "3"}
    for action in ("start", "add"):
        body = form([*data.items(), ("action", action), ("player_" + bad.HUGE, "Zoé")])
        response = client.post("/start/agram/", body, content_type="application/x-www-form-urlencoded")
        assert response.status_code in (200, 302) and "Zoé" not in response.content.decode()


def test_a_session_value_of_another_shape_is_dropped_when_read_and_the_others_kept():
    kept = {"sittings": ["abcdefghijklmnop"], "phone": "k3Xa", "seats": {"abcdefghijklmnop": 2}, "other": [1]}
    assert as_written({**kept, "groups": 3, "demo_group": "x"}) == kept
    assert as_written({"_auth_user_id": "x", "_auth_user_backend": "b", "phone": "\x00"}) == {}
    login = {"_auth_user_id": "12", "_auth_user_backend": "django.contrib.auth.backends.ModelBackend"}
    assert as_written(login) == login
    for shape in (None, [1], "text", 5, {"seats": {"abcdefghijklmnop": True}}, {"sittings": [None]}):
        assert as_written(shape) in ({}, {"sittings": []})
