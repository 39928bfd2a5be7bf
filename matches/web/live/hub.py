"""One hub per app process: which phones listen to which sitting or group, and each sitting's table
region rendered once per change and language, then sent to all of its phones."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field

from asgiref.sync import sync_to_async

from matches.web.live.prerendered import kept
from matches.web.live.regions import Region, render_region

SITTING, GROUP = "s", "g"
PENDING = object()  # region_now: not rendered yet


@dataclass(eq=False)
class Listener:
    """One phone's stream: woken when what it shows may have changed."""

    changed: asyncio.Event = field(default_factory=asyncio.Event)
    seen: object = None  # a group's version the phone shows (None: not known)


@dataclass
class Rendered:
    generation: int
    region: asyncio.Future  # of Region | None


class Hub:
    def __init__(self) -> None:
        self.listeners: dict[tuple[str, int], set[Listener]] = defaultdict(set)
        # Bumped by every change heard of: a region rendered before it is out of date.
        self.generations: dict[int, int] = defaultdict(int)
        self.known: dict[tuple[str, int], object] = {}  # the last version heard of or rendered
        self.rendered: dict[tuple[int, str, bool], Rendered] = {}
        self.groups_of: dict[int, int] = {}  # sitting id -> its group's id
        self.feed: asyncio.Task | None = None
        self.feed_away = False  # its feed's server is away (feeds.Outage): the sweep stands in for it meanwhile

    def listen(self, kind: str, pk: int, version: object = None, group_id: int | None = None) -> Listener:
        """`group_id`: the sitting's group, whose changes (a renamed player) may change its table."""
        listener = Listener(seen=version if kind == GROUP else None)
        self.listeners[(kind, pk)].add(listener)
        self.known.setdefault((kind, pk), version)
        if group_id is not None:
            self.groups_of[pk] = group_id
        return listener

    def leave(self, kind: str, pk: int, listener: Listener) -> None:
        listeners = self.listeners.get((kind, pk))
        if listeners is None:
            return
        listeners.discard(listener)
        if not listeners:  # nobody shows it here any more: forget it
            del self.listeners[(kind, pk)]
            self.known.pop((kind, pk), None)
            if kind == SITTING:
                self.generations.pop(pk, None)
                self.groups_of.pop(pk, None)
                for key in [key for key in self.rendered if key[0] == pk]:
                    del self.rendered[key]

    def watched(self, kind: str) -> list[int]:
        return [pk for (k, pk) in self.listeners if k == kind]

    def changed(self, kind: str, pk: int, version: object = None) -> None:
        """Something changed `kind` `pk` (to `version` when known): wake its listeners."""
        if (kind, pk) not in self.listeners:
            return
        if version is not None and self.known.get((kind, pk)) == version:
            return  # already shown (a check that read what a notification said)
        # Not known (a rename announces none): no region kept for an older version may stand for it.
        self.known[(kind, pk)] = version
        if kind == SITTING:
            self.generations[pk] += 1
        for listener in self.listeners[(kind, pk)]:
            if version is not None and listener.seen == version:
                continue  # a group page opened since shows it already (another phone's stream kept the old)
            listener.seen = version if kind == GROUP else None
            listener.changed.set()

    def group_changed(self, group_id: int, version: object = None) -> None:
        """A group changed (to `version` when known): its page, and the tables of its matches shown here
        (a player renamed)."""
        self.changed(GROUP, group_id, version)
        for sitting_id in [pk for pk, group in self.groups_of.items() if group == group_id]:
            self.changed(SITTING, sitting_id)

    async def region(self, sitting_id: int, language: str, watching: bool) -> Region | None:
        """The sitting's region now; rendered once for all of its phones in this language."""
        return await asyncio.shield(self._rendered(sitting_id, language, watching).region)

    def region_now(self, sitting_id: int, language: str, watching: bool, render: bool = True) -> Region | None | object:
        """region() when it needs no wait (a tap's view here kept it, or a phone's stream had it rendered),
        else PENDING: most pushes then cost no task, no timer and no turn of the event loop. `render=False`:
        PENDING without starting the render (the tap's view may keep it in a moment)."""
        rendered = self._rendered(sitting_id, language, watching, render)
        if rendered is None or not rendered.region.done() or self._failed(rendered):
            return PENDING
        return rendered.region.result()

    def _rendered(self, sitting_id: int, language: str, watching: bool, render: bool = True) -> Rendered | None:
        key = (sitting_id, language, watching)
        generation = self.generations[sitting_id]
        rendered = self.rendered.get(key)
        if rendered is None or rendered.generation != generation or self._failed(rendered):
            loop = asyncio.get_running_loop()
            region = None if watching else kept(sitting_id, language, self.known.get((SITTING, sitting_id)))
            if region is not None:  # rendered by the tap's view: ready now
                future = loop.create_future()
                future.set_result(region)
            elif render:
                future = loop.create_task(self._render(sitting_id, language, watching))
                future.add_done_callback(lambda done: done.cancelled() or done.exception())  # read, phones gone or not
            else:
                return None
            rendered = self.rendered[key] = Rendered(generation, future)
        return rendered

    async def _render(self, sitting_id: int, language: str, watching: bool) -> Region | None:
        region = await sync_to_async(render_region, thread_sensitive=False)(sitting_id, language, watching)
        if region is not None and (SITTING, sitting_id) in self.listeners:
            known = self.known.get((SITTING, sitting_id))
            if isinstance(known, int) and region.version > known:
                # Read before its notice came (a phone opened the table first): the phones here still show the
                # version before, in every language; the notice, saying what was read already, would wake none.
                self.changed(SITTING, sitting_id, region.version)
            else:
                self.known[(SITTING, sitting_id)] = region.version
        return region

    @staticmethod
    def _failed(rendered: Rendered) -> bool:
        future = rendered.region
        return future.done() and (future.cancelled() or future.exception() is not None)
