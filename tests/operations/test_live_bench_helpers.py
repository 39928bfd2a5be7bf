"""The pure helpers of `make bench`'s live part (bench/live_bench.py): the figures are only as right as
the stream parsing, the chunked decoding and the percentiles under them. Nothing here times anything."""

from __future__ import annotations

from bench import live_bench as lb


def test_percentiles_are_nearest_rank_and_rounds_report_their_median_and_spread():
    values = [float(n) for n in range(1, 101)]
    assert lb.percentile(values, 0.5) == 51.0  # round(0.5 * 99) = 50 (banker's), the 51st value
    assert lb.percentile(values, 0.95) == 95.0
    assert lb.percentile(values, 0.99) == 99.0
    assert lb.percentile([3.0], 0.95) == 3.0
    assert lb.over_rounds([3.0, 1.0, 2.0]) == {"median": 2.0, "spread": [1.0, 3.0], "rounds": [3.0, 1.0, 2.0]}


def test_sse_events_are_read_as_a_browser_reads_them_whatever_the_pieces_they_arrive_in():
    stream = (
        "retry: 2000\n\n"
        ": ping\n\n"
        "id: 12\nevent: table\ndata: <section id=\"table\"\ndata:  data-version=\"12\">\ndata: </section>\n\n"
        "id: 13\r\nevent: table\r\ndata:x\r\n\r\n"
        "event: gone\ndata: /s/new/\n\n"
        "data: no event name\n\n"
    )
    for size in (1, 2, 7, len(stream)):
        parser = lb.SSEParser()
        events = []
        for start in range(0, len(stream), size):
            events += parser.feed(stream[start : start + size])
        assert [(e.event, e.id, e.data) for e in events] == [
            ("table", "12", '<section id="table"\n data-version="12">\n</section>'),
            ("table", "13", "x"),
            ("gone", "13", "/s/new/"),  # the last event id stays, as EventSource keeps it
            ("message", "13", "no event name"),
        ], size
        assert parser.comments == 1 and parser.retry == 2000


def test_chunked_bodies_are_decoded_across_any_split_and_the_last_chunk_ends_them():
    body = b"5\r\nhello\r\n1a;ext=1\r\n" + b"a" * 26 + b"\r\n0\r\n\r\n"
    for size in (1, 3, len(body)):
        decoder = lb.ChunkedDecoder()
        out = b"".join(decoder.feed(body[i : i + size]) for i in range(0, len(body), size))
        assert out == b"hello" + b"a" * 26 and decoder.done, size


def test_heads_versions_and_poll_phases():
    status, headers = lb.parse_head(b"HTTP/1.1 304 Not Modified\r\nETag: \"12\"\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2")
    assert status == 304 and headers["etag"] == ['"12"'] and headers["set-cookie"] == ["a=1", "b=2"]
    assert lb.shown_version('<section id="table" data-poll data-version="41" data-events="/s/t/events/">') == 41
    assert lb.shown_version('<section id="table" hx-get="/s/t/poll/?v=7">') == 7
    assert lb.shown_version("<p>nothing</p>") is None
    phases = lb.even_phases(400, 5.0)
    assert sorted(phases) == [5.0 * i / 400 for i in range(400)] and phases[:4] != sorted(phases)[:4]
