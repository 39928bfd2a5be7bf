"""Last Trick's settings with one change: its tap cut short (bench/unanswered_urls.py). Used by
bench/http_bench.py to measure the floor of a tap, what it costs before its answer."""

from scorekeeper.settings import *  # the app's settings, as they are

ROOT_URLCONF = "bench.unanswered_urls"
