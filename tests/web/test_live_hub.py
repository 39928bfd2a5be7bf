"""The live hub of one app process: who listens to what, and each table rendered once per change and
language whatever the number of phones (matches.web.live.hub), and what the feeds hear (their connections:
test_live_feeds.py)."""

import asyncio
import gc

import pytest

from matches.web.live import hub as hubs
from matches.web.live import prerendered
from matches.web.live.feeds import heard
from matches.web.live.hub import GROUP, SITTING, Hub
from matches.web.live.regions import Region
from matches.web.live.streams import event, seen_version

pytestmark = pytest.mark.engine


@pytest.fixture
def renders(monkeypatch):
    """Stand-in for the database and templates: each render is counted and says its version."""
    calls = []
    state = {"version": 1}

    def render(sitting_id, language, watching):
        calls.append((sitting_id, language, watching))
        return Region(state["version"], f"<section>{language} v{state['version']}</section>", ("m", "w"))

    monkeypatch.setattr(hubs, "render_region", render)
    return calls, state


def quiet_hub() -> Hub:
    return Hub()  # no feed: these tests say what changed


def test_four_phones_of_a_table_in_one_language_cost_one_render_per_change(renders):
    calls, state = renders

    async def scenario():
        hub = quiet_hub()
        phones = [hub.listen(SITTING, 7, 1) for _ in range(4)]
        first = await asyncio.gather(*(hub.region(7, "fr", False) for _ in phones))
        state["version"] = 2
        hub.changed(SITTING, 7, 2)
        assert all(phone.changed.is_set() for phone in phones)
        second = await asyncio.gather(*(hub.region(7, "fr", False) for _ in phones))
        await hub.region(7, "de", False)
        await hub.region(7, "fr", True)
        return first, second

    first, second = asyncio.run(scenario())
    assert {region.version for region in first} == {1} and {region.version for region in second} == {2}
    assert calls == [(7, "fr", False), (7, "fr", False), (7, "de", False), (7, "fr", True)]


def test_a_change_of_unknown_version_is_never_answered_with_a_region_kept_for_an_older_one(renders):
    """A tap keeps its region (version 2) for the push; a group's rename then moves the version on without
    saying to what: the hub renders the table again in every language (it answered French phones with the
    kept version 2, while a German render learnt version 3, so the checks reading 3 woke nobody)."""
    calls, state = renders

    async def scenario():
        hub = quiet_hub()
        for _language in ("fr", "de"):
            hub.listen(SITTING, 7, 1)
        state["version"] = 2
        prerendered.keep(7, "fr", Region(2, "<section>fr v2 kept</section>", ("m", "w")))
        hub.changed(SITTING, 7, 2)
        assert (await hub.region(7, "fr", False)).html == "<section>fr v2 kept</section>"
        state["version"] = 3  # the rename, announced without its version
        hub.changed(SITTING, 7)
        return {language: await hub.region(7, language, False) for language in ("fr", "de")}

    shown = asyncio.run(scenario())
    assert {language: region.version for language, region in shown.items()} == {"fr": 3, "de": 3}
    assert calls == [(7, "fr", False), (7, "de", False)]


def test_a_region_the_taps_view_kept_is_pushed_at_once_without_a_task_and_one_not_yet_rendered_waits(renders):
    """region_now: the kept region of the version heard of, with no task made (a push then costs no turn of the
    event loop); a version nobody here rendered is PENDING and gets its one render, then is ready too."""
    calls, state = renders

    async def scenario():
        hub = quiet_hub()
        hub.listen(SITTING, 7, 1)
        prerendered.keep(7, "fr", Region(2, "<section>fr v2 kept</section>", ("m", "w")))
        hub.changed(SITTING, 7, 2)
        tasks = len(asyncio.all_tasks())
        kept = hub.region_now(7, "fr", False)
        made = len(asyncio.all_tasks()) - tasks
        waiting = hub.region_now(7, "de", False)
        state["version"] = 2
        rendered = await hub.region(7, "de", False)
        return kept, made, waiting, rendered, hub.region_now(7, "de", False)

    kept, made, waiting, rendered, ready = asyncio.run(scenario())
    assert (kept.html, made) == ("<section>fr v2 kept</section>", 0)
    assert waiting is hubs.PENDING and ready is rendered and rendered.version == 2
    assert calls == [(7, "de", False)]


def test_a_change_whose_region_the_taps_view_kept_is_pushed_without_the_moments_wait_and_another_waits(
    renders, settings, monkeypatch
):
    """The wait after a wake (for the tap's view to keep its region: changes a moment apart make one push) is
    spent only when the region is not kept yet: set to 30 s here, a kept one still comes at once."""
    from matches.web.live import streams

    calls, state = renders
    settings.LIVE_COALESCE_SECONDS = 30
    real_woken = streams.woken

    async def run():
        parked = asyncio.Event()  # the stream waits for a change

        async def woken(changed):
            parked.set()
            return await real_woken(changed)

        monkeypatch.setattr(streams, "woken", woken)
        live = quiet_hub()
        found_pending = asyncio.Event()  # the stream found the region not kept: it waits its moment
        peek = live.region_now

        def region_now(*args, render=True):
            found = peek(*args, render=render)
            if not render and found is hubs.PENDING:
                found_pending.set()
            return found

        live.region_now = region_now
        listener = live.listen(SITTING, 7, 1, None)
        events = streams.table_events(live, listener, 7, 1, "fr", False, "m")
        assert (await events.__anext__()).startswith("retry:")
        waiting = asyncio.ensure_future(events.__anext__())  # the region of version 1, as the phone shows: nothing sent
        async with asyncio.timeout(5):
            await parked.wait()
        prerendered.keep(7, "fr", Region(2, "<section>fr v2 kept</section>", ("m", "w")))
        live.changed(SITTING, 7, 2)
        async with asyncio.timeout(5):
            kept = await waiting
        waited_for_kept = found_pending.is_set()
        state["version"] = 3
        live.changed(SITTING, 7, 3)  # kept by no view here: the moment's wait, then the hub's own render
        late = asyncio.ensure_future(events.__anext__())
        async with asyncio.timeout(5):
            await found_pending.wait()
        still_waiting = not late.done()
        late.cancel()  # the phone goes away
        await asyncio.gather(late, return_exceptions=True)
        await events.aclose()
        return kept, waited_for_kept, still_waiting

    kept, waited_for_kept, still_waiting = asyncio.run(run())
    assert kept.startswith("id: 2\n") and "fr v2 kept" in kept and not waited_for_kept
    assert still_waiting and calls == [(7, "fr", False)]  # version 1's, as the stream opened: none of 3 yet


def test_a_phone_opening_a_table_just_after_a_change_wakes_the_phones_still_showing_the_one_before(renders):
    """A change heard late (a plain form post's notice, another server's): a phone that opens the table first
    reads the new version; the notice then says what was read already, and the phones already there, in any
    language, must still get it (they stayed on the old score, the checks finding nothing to say)."""
    calls, state = renders

    async def scenario():
        hub = quiet_hub()
        here = [hub.listen(SITTING, 7, 1) for _ in range(2)]
        before = {language: await hub.region(7, language, True) for language in ("vi", "de")}
        state["version"] = 2  # recorded on another phone; its notice is on its way
        hub.listen(SITTING, 7, 2)
        opened = await hub.region(7, "fr", True)  # a language nobody here read yet: rendered afresh
        woken = [phone.changed.is_set() for phone in here]
        hub.changed(SITTING, 7, 2)  # the notice, late
        after = {language: await hub.region(7, language, True) for language in ("vi", "de")}
        return before, opened, woken, after

    before, opened, woken, after = asyncio.run(scenario())
    assert {region.version for region in before.values()} == {1} and opened.version == 2
    assert woken == [True, True] and {language: region.version for language, region in after.items()} == {"vi": 2, "de": 2}


def test_a_change_already_shown_wakes_nobody_and_an_unwatched_one_is_ignored(renders):
    async def scenario():
        hub = quiet_hub()
        phone = hub.listen(SITTING, 7, 3)
        hub.changed(SITTING, 7, 3)  # a check reading the version the phone has
        hub.changed(SITTING, 8, 9)  # nobody here shows sitting 8
        woken_by_same = phone.changed.is_set()
        hub.changed(SITTING, 7, None)  # a change whose version is not known: read it
        return woken_by_same, phone.changed.is_set(), hub.watched(SITTING)

    assert asyncio.run(scenario()) == (False, True, [7])


def test_a_group_page_opened_after_a_change_is_not_woken_by_it_while_an_older_one_is():
    """A payment marked on a phone redirects it to the group page, whose stream opens at the new version
    while the old page's stream (or another phone's) still holds the old: the change wakes only the old."""
    hub = quiet_hub()
    older, newer = hub.listen(GROUP, 7, (3, None)), hub.listen(GROUP, 7, (4, None))
    hub.changed(GROUP, 7, (4, None))
    assert older.changed.is_set() and not newer.changed.is_set()
    hub.changed(GROUP, 7)  # a change of unknown version (a rename's notice): both look again
    assert newer.changed.is_set()


def test_the_last_phone_to_leave_a_table_frees_what_the_hub_kept_of_it(renders):
    async def scenario():
        hub = quiet_hub()
        a, b = hub.listen(SITTING, 7, 1), hub.listen(SITTING, 7, 1)
        await hub.region(7, "fr", False)
        hub.leave(SITTING, 7, a)
        kept = bool(hub.rendered)
        hub.leave(SITTING, 7, b)
        return kept, hub.rendered, hub.watched(SITTING), hub.known

    assert asyncio.run(scenario()) == (True, {}, [], {})


@pytest.mark.parametrize(
    "payload, woken",
    [
        ("s7:12:3", [(SITTING, 7, 12), (GROUP, 3, None)]),
        ("s7::", [(SITTING, 7, None)]),
        ("g3", [(GROUP, 3, None)]),
        ("sx:1:2", []),
        ("", []),
        ("s:1:2", []),
        ("q7", []),
    ],
)
def test_the_feeds_payloads_wake_what_they_name(payload, woken):
    class Recording:
        def __init__(self):
            self.calls = []

        def changed(self, kind, pk, version=None):
            self.calls.append((kind, pk, version))

    hub = Recording()
    heard(hub, payload)
    assert hub.calls == woken


@pytest.mark.parametrize(
    "html, sent",
    [
        ("<p>a</p>", "event: table\ndata: <p>a</p>\n\n"),
        ("<p>a</p>\n<p>b</p>", "event: table\ndata: <p>a</p>\ndata: <p>b</p>\n\n"),
        ("", "event: table\ndata: \n\n"),
    ],
)
def test_every_line_of_an_event_is_its_own_data_line(html, sent):
    assert event("table", html) == sent


@pytest.mark.parametrize(
    "header, query, seen",
    [("12", "3", 12), ("", "3", 3), ("", "", None), ("x", "4", None), ("", "9" * 20, None), ("", "-1", None)],
)
def test_the_version_a_phone_shows_comes_from_last_event_id_first(rf, header, query, seen):
    request = rf.get("/s/x/events/", {"v": query}, HTTP_LAST_EVENT_ID=header)
    assert seen_version(request) == seen


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/s/{token}/events/", "/w/{watch}/events/", "/g/{token}/events/"])
def test_a_stream_asked_while_the_database_is_away_is_told_to_try_again(client, sitting, monkeypatch, path):
    from django.db import OperationalError

    from matches.web.live import streams

    def away(*args):
        raise OperationalError("the server closed the connection unexpectedly")

    monkeypatch.setattr(streams, "find", away)
    response = client.get(path.format(token=sitting.token, watch=sitting.watch_token))
    assert response.status_code == 503 and response["Retry-After"] == "5"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/s/{bad}/events/", "/w/{bad}/events/", "/g/{bad}/events/", "/gw/{bad}/events/"])
@pytest.mark.parametrize("bad", ["A" * 22, "%F0%9F%82%A1", "x" * 300, "a'b"])
def test_a_stream_for_a_link_that_reaches_nothing_is_a_404(client, path, bad):
    assert client.get(path.format(bad=bad)).status_code == 404


def test_a_stream_whose_table_read_waits_on_the_database_keeps_its_heartbeats_and_leaves_no_stray_error(
    monkeypatch, settings, caplog
):
    """A read held by the database (its pool, its lock) sends a heartbeat each period meanwhile; a read
    that fails once its phone is gone is not logged as an error never retrieved."""
    from django.db import OperationalError

    from matches.web.live.streams import table_events

    settings.LIVE_HEARTBEAT_SECONDS = 0.02

    async def run() -> list[str]:
        gate = asyncio.Event()

        async def held_render(self, sitting_id, language, watching):
            await gate.wait()
            raise OperationalError("the pool timed out")

        monkeypatch.setattr(Hub, "_render", held_render)
        live = quiet_hub()
        listener = live.listen(SITTING, 7, 1, None)
        events = table_events(live, listener, 7, 1, "en", True, "w")
        async with asyncio.timeout(5):  # (a stream that sends nothing while it waits fails here)
            said = [await events.__anext__() for _ in range(4)]  # retry:, then pings while the read waits
        await events.aclose()  # the phone went away while the read waited...
        gate.set()  # ...and then the read failed, with no stream left to take its error
        others = asyncio.all_tasks() - {asyncio.current_task()}
        if others:  # the shared read ends (asyncio.wait reads no task's error: the callbacks must have)
            await asyncio.wait(others, timeout=5)
        return said

    said = asyncio.run(run())
    gc.collect()  # a failed task nobody read says so when it is collected
    assert said[0].startswith("retry:") and said[1:] == ["event: ping\ndata: 0.02\n\n"] * 3
    assert "never retrieved" not in caplog.text


def test_a_stream_whose_table_read_failed_reads_it_again_soon_without_a_change(monkeypatch, settings):
    """The database was away for a moment: the phone gets the table once it is back, not at the next tap."""
    from django.db import OperationalError

    from matches.web.live import streams

    settings.LIVE_HEARTBEAT_SECONDS = 60
    monkeypatch.setattr(streams, "READ_AGAIN_SECONDS", 0.01)
    reads = []

    async def render_once_back(self, sitting_id, language, watching):
        reads.append(sitting_id)
        if len(reads) == 1:
            raise OperationalError("terminating connection due to administrator command")
        return Region(2, "<section>v2</section>", ("m", "w"))

    async def run() -> str:
        monkeypatch.setattr(Hub, "_render", render_once_back)
        live = quiet_hub()
        events = streams.table_events(live, live.listen(SITTING, 7, 1, None), 7, 1, "en", False, "m")
        async with asyncio.timeout(5):
            said = [await events.__anext__() for _ in range(2)]  # retry:, then what came next
        await events.aclose()
        return said[1]

    assert asyncio.run(run()).startswith("id: 2\nevent: table")
