"""A speed trick, kept because `make bench` shows it (BENCHMARKS.md, live updates): a tap's answer and the
push of that tap to the other phones are the same table region but for the answer's notice. The tap's
view renders the region's body once and leaves the pushed region here; this process's hub takes it
instead of rendering the table again. tests/web/test_prerendered.py checks that it is what the hub
would have rendered."""

from __future__ import annotations

import threading
from collections import OrderedDict

from matches.web.live.regions import Region

KEPT = 256  # regions: the last taps of this process, a few seconds' worth on a busy server
_kept: OrderedDict[tuple[int, str], Region] = OrderedDict()
_lock = threading.Lock()  # views run in threads, the hub on the event loop


def keep(sitting_id: int, language: str, region: Region) -> None:
    with _lock:
        _kept[(sitting_id, language)] = region
        _kept.move_to_end((sitting_id, language))
        while len(_kept) > KEPT:
            _kept.popitem(last=False)


def forget_all() -> None:
    """Nothing kept: for tests, whose sittings reuse the ids of an earlier test's."""
    with _lock:
        _kept.clear()


def kept(sitting_id: int, language: str, version: object) -> Region | None:
    """The member region of `version` if a view here rendered it, else None (the hub renders it)."""
    with _lock:
        region = _kept.get((sitting_id, language))
    return region if region is not None and region.version == version else None
