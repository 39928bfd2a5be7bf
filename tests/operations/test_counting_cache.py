"""The rate limits' counters: exact across processes, expiring, and swept when their window is over."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.cache.backends import base as cache_base

from matches.web import counting_cache
from matches.web.counting_cache import SUFFIX, CountingFileCache


def counting(location: str, key: str, times: int) -> None:
    cache = CountingFileCache(location, {})
    for _ in range(times):
        if not cache.add(key, 1, 60):
            cache.incr(key)


def test_four_processes_counting_at_once_lose_no_count(tmp_path):
    workers = [
        multiprocessing.get_context("fork").Process(target=counting, args=(str(tmp_path), "taps", 300))
        for _ in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert CountingFileCache(str(tmp_path), {}).get("taps") == 1200


def test_a_counter_starts_again_once_its_window_is_over(tmp_path, monkeypatch):
    cache = CountingFileCache(str(tmp_path), {})
    assert cache.add("phone", 1, 30) is True
    assert cache.add("phone", 1, 30) is False
    assert cache.incr("phone") == 2
    later = time.time() + 31
    clock = SimpleNamespace(time=lambda: later)  # the two modules' own name for time, not the process's
    monkeypatch.setattr(counting_cache, "time", clock)
    monkeypatch.setattr(cache_base, "time", clock)
    assert cache.get("phone") is None
    with pytest.raises(ValueError):
        cache.incr("phone")
    assert cache.add("phone", 1, 30) is True and cache.get("phone") == 1


def test_sweeping_removes_only_expired_counters(tmp_path):
    cache = CountingFileCache(str(tmp_path), {})
    cache.add("old", 1, 0.01)
    cache.add("live", 5, 60)
    time.sleep(0.05)
    cache.sweep()
    assert len(list(Path(tmp_path).glob(f"*{SUFFIX}"))) == 1
    assert cache.get("live") == 5 and cache.get("old") is None


def test_only_whole_numbers_are_kept(tmp_path):
    with pytest.raises(TypeError):
        CountingFileCache(str(tmp_path), {}).set("name", "Bako")
