"""What tests/operations/test_fuzzing.py sends: bad bytes for every place a request carries text (the
path, the query, the headers, the body, each form field and its name), and the app's addresses with
real tokens filled in. A value is (label, bytes or str); a form or a query %-escapes it byte by byte."""

from __future__ import annotations

from dataclasses import dataclass

HUGE = "9" * 5000  # past Python's 4,300-digit int() limit, and any database integer

# Form field values; also the values of the query keys a view reads.
BAD_VALUES: list[tuple[str, str | bytes]] = [
    ("invalid UTF-8", b"\xff\xfe\xfd"),
    ("truncated UTF-8", b"1\xc3"),
    ("lone surrogate", b"\xed\xa0\x80"),
    ("non-Latin-1", "\U0001f0a1 \u03a9 \u0416 \u6f22\u5b57"),
    ("other digits", "\u0661\u0662"),  # Arabic-Indic 12: Python's int() takes them
    ("NUL", "1\x00"),
    ("control characters", "\r\n\t\x1b[31m\x7f\u202e"),
    ("huge integer", HUGE),
    ("huge negative", "-" + HUGE),
    ("past 64 bits", "18446744073709551617"),
    ("past 32 bits", "2147483648"),
    ("negative", "-1"),
    ("zero", "0"),
    ("float", "1.5e3"),
    ("very long", "x" * 100_000),
    ("long non-Latin-1", "\U0001f0a1" * 5000),
    ("empty", ""),
]

# Field names no form has, added to a form that is otherwise as its page sends it.
BAD_NAMES: list[tuple[str, str | bytes]] = [
    ("player row of 5,000 digits", "player_" + HUGE),
    ("player row past 64 bits", "player_18446744073709551617"),
    ("player row in other digits", "player_\u0663"),
    ("invalid UTF-8", b"\xff\xfe"),
    ("NUL", "\x00"),
    ("non-Latin-1", "\U0001f0a1"),
    ("huge", "k" * 50_000),
]

# Query strings for every address: what breaks the parsing of any query.
ANY_QUERY: list[tuple[str, bytes]] = [
    ("non-Latin-1", b"?v=%F0%9F%82%A1&%F0%9F%82%A1=1"),
    ("%FF and a lone surrogate", b"?v=%FF&%ED%A0%80=%ED%A0%80"),
    ("NUL", b"?v=%00&%00=1"),
    ("invalid escapes", b"?v=%&%zz=%G0&&=&%"),
    ("repeated keys", b"?v=1&v=%FF&from=1&from=%00&game=agram&game=%F0%9F%82%A1&next=/&next=%ED%A0%80"),
    ("too many fields", b"?" + b"&".join(b"k%d=1" % i for i in range(1500))),
    ("huge", b"?v=" + HUGE.encode() + b"&from=" + b"x" * 20_000),
    ("raw bytes", b"?v=\xff\xf0\x9f\x82\xa1&\xc3=\xed\xa0\x80"),  # not %-escaped
]

# Header (name, value) pairs, sent as they are.
BAD_HEADERS: list[tuple[str, list[tuple[bytes, bytes]]]] = [
    ("garbage session cookie", [(b"Cookie", b"sessionid=garbage")]),
    ("forged session", [(b"Cookie", b"sessionid=eyJwaG9uZSI6IngifQ:1tAAAA:" + b"A" * 43)]),  # a wrong signature
    ("non-Latin-1 cookie", [(b"Cookie", "sessionid=\U0001f0a1; csrftoken=\u0416".encode())]),
    ("%-escaped cookie", [(b"Cookie", b"sessionid=%FF%00; messages=%ED%A0%80")]),
    ("garbage messages cookie", [(b"Cookie", b"messages=W1siX19qc29uX21lc3NhZ2UiXV0:garbage")]),
    ("odd language cookie", [(b"Cookie", "django_language=\U0001f0a1; django_language=../..".encode())]),
    ("huge cookie", [(b"Cookie", b"sessionid=" + b"A" * 7000)]),
    ("cookie without equals", [(b"Cookie", b"garbage;;;=;a")]),
    ("garbage CSRF cookie", [(b"Cookie", b"csrftoken=\xff\xfe%00\x7f")]),
    ("CSRF cookie of 5,000 characters", [(b"Cookie", b"csrftoken=" + b"a" * 5000)]),
    ("garbage language", [(b"Accept-Language", b"\xff\xfe;q=zz, *;q=-1, en;q=1e999")]),
    ("non-Latin-1 language", [(b"Accept-Language", "\U0001f0a1,\u0416-\u0416".encode())]),
    ("very long language", [(b"Accept-Language", b",".join([b"fr-FR;q=0.9"] * 700))]),
    ("long language tag", [(b"Accept-Language", b"x" * 6000)]),
    ("odd htmx headers", [(b"HX-Request", b"\xff"), (b"HX-Target", "\U0001f0a1".encode()), (b"HX-Trigger", b"\xc3")]),
    ("htmx history restore", [(b"HX-Request", b"true"), (b"HX-History-Restore-Request", b"\xf0\x9f\x82\xa1")]),
    ("htmx current URL", [(b"HX-Request", b"true"), (b"HX-Current-URL", b"http://[::1/%FF"), (b"HX-Boosted", b"x")]),
    ("htmx table target", [(b"HX-Request", b"true"), (b"HX-Target", b"table"), (b"HX-Prompt", b"\xc3")]),
    ("other host", [(b"Host", b"evil.example")]),
    ("non-Latin-1 host", [(b"Host", "\U0001f0a1.example".encode())]),
    ("host with odd port", [(b"Host", b"127.0.0.1:99999999999999999999")]),
    ("host IPv6 unclosed", [(b"Host", b"[::1")]),
    ("two hosts", [(b"Host", b"127.0.0.1"), (b"Host", b"evil.example")]),
    ("last event id garbage", [(b"Last-Event-ID", b"\xff\xfe")]),
    ("last event id huge", [(b"Last-Event-ID", HUGE.encode())]),
    ("last event id other digits", [(b"Last-Event-ID", "\u0661\u0662".encode())]),
    ("forwarded-for garbage", [(b"X-Forwarded-For", b"\xff, ::ffff:999.1.1.1, fe80::1%eth0")]),
    ("forwarded-for huge", [(b"X-Forwarded-For", b"1" * 8000)]),
    ("origin garbage", [(b"Origin", b"http://[::1"), (b"Referer", b"\xff://")]),
    ("null origin, odd fetch site", [(b"Origin", b"null"), (b"Sec-Fetch-Site", b"\xf0\x9f\x82\xa1")]),
    ("CSRF header garbage", [(b"X-CSRFToken", b"\xff" * 64)]),
    ("accept garbage", [(b"Accept", b"\xff/\xfe;q=x"), (b"Accept-Encoding", b"\xf0\x9f\x82\xa1")]),
    ("expect garbage", [(b"Expect", b"\xff")]),
    ("expect 100-continue", [(b"Expect", b"100-continue")]),
]

# Content-Type values for a POST whose body is a form.
BAD_CONTENT_TYPES: list[bytes] = [
    b"multipart/form-data",
    b"multipart/form-data; boundary=",
    b"multipart/form-data; boundary=\xf0\x9f\x82\xa1",
    b"multipart/form-data; boundary=x",
    b"application/x-www-form-urlencoded; charset=no-such-charset",
    b"application/x-www-form-urlencoded; charset=utf-16",
    b"application/x-www-form-urlencoded; charset=\xff",
    b"application/json",
    b"\xff\xfe",
]


def multipart(fields: list[tuple[bytes, bytes, bytes]]) -> bytes:
    """A multipart/form-data body with boundary B: (name, value, extra Content-Disposition text) each."""
    parts = [b'--B\r\nContent-Disposition: form-data; name="%s"%s\r\n\r\n%s\r\n' % field for field in fields]
    return b"".join(parts) + b"--B--\r\n"


# Multipart bodies (the CSRF field is added in front): bad bytes in values, names, file names, parts.
BAD_MULTIPARTS: list[tuple[str, list[tuple[bytes, bytes, bytes]]]] = [
    ("invalid UTF-8 values", [(b"number", b"\xff\xfe", b""), (b"name", b"\xed\xa0\x80\x00", b"")]),
    ("invalid UTF-8 names", [(b"\xff\xfe", b"1", b""), (b"player_" + HUGE.encode(), b"x", b"")]),
    ("odd file name", [(b"name", b"x", b'; filename="\xf0\x9f\x82\xa1\x00.txt"')]),
    ("too many parts", [(b"k%d" % i, b"1", b"") for i in range(1100)]),
]

# What replaces a token, a game, a number or a language in an address (already %-escaped).
BAD_SEGMENTS: list[tuple[str, bytes]] = [
    ("non-Latin-1", b"%F0%9F%82%A1"),
    ("non-Latin-1 and letters", b"%F0%9F%82%A1" * 4 + b"abcdefghijklmnop"),
    ("%FF", b"%FF"),
    ("NUL in a token", b"abcdefghijklmnop%00"),
    ("lone surrogate", b"%ED%A0%80"),
    ("dots", b"%2e%2e"),
    ("bare percent", b"%"),
    ("very long", b"x" * 5000),
    ("huge number", HUGE.encode()),
    ("past 64 bits", b"18446744073709551617"),
    ("leading zeros", b"0000000000000000000000001"),
    ("raw bytes", b"\xf0\x9f\x82\xa1\xff"),  # not %-escaped, as an attacker may send them
]

# Methods other than GET, POST and HEAD (sent with the CSRF token, so that they reach the views).
OTHER_METHODS = ["PUT", "DELETE", "OPTIONS", "PROPFIND"]


@dataclass
class World:
    """The real things the fuzz reaches: a sitting's links, a Cat Tê sitting, a group's links, a player."""

    token: str
    watch: str
    chips_token: str
    group: str
    group_watch: str
    player: int
    static: str = ""

    def routes(self) -> list[str]:
        """Every address of the app (scorekeeper/urls.py, matches/web/urls.py), tokens filled in."""
        s, w, g, gw, p = self.token, self.watch, self.group, self.group_watch, self.player
        return [
            "/", "/start/", "/start/agram/", "/demo/", "/sw.js", "/offline/",
            f"/s/{s}/", f"/s/{s}/poll/", f"/s/{s}/links/", f"/s/{s}/share/", f"/s/{s}/me/",
            f"/w/{w}/", f"/w/{w}/poll/", f"/s/{s}/tap/", f"/s/{s}/undo/", f"/s/{s}/end/",
            f"/s/{s}/rematch/", f"/s/{s}/hands/", f"/s/{s}/hands/1/", f"/s/{self.chips_token}/chips/",
            f"/s/{s}/hands.csv", f"/s/{s}/seats/", f"/s/{s}/seen/", "/groups/new/", f"/g/{g}/", f"/g/{g}/new/", f"/g/{g}/new/agram/",
            f"/g/{g}/players/", f"/g/{g}/players/{p}/", f"/g/{g}/players/{p}/rename/",
            f"/g/{g}/players/{p}/remove/", f"/g/{g}/players/{p}/erase/", f"/g/{g}/links/", f"/g/{g}/share/",
            f"/gw/{gw}/", f"/g/{g}/matches/", f"/gw/{gw}/matches/", f"/s/{s}/group/", f"/g/{g}/hands.csv",
            f"/g/{g}/group.json", "/groups/import/", f"/g/{g}/tab/", f"/g/{g}/tab/paid/", f"/g/{g}/tab/back/",
            f"/g/{g}/tab/forgive/",
            f"/g/{g}/stats/", f"/gw/{gw}/stats/",
            "/admin/", "/admin/login/", "/i18n/setlang/", "/manifest.en.webmanifest", "/favicon.ico",
            self.static, "/static/no-such-file.css", "/no/such/page/",
        ]  # fmt: skip

    def streams(self) -> list[str]:
        """The Server-Sent Events addresses: answers that do not end."""
        return [f"/s/{self.token}/events/", f"/w/{self.watch}/events/", f"/g/{self.group}/events/",
                f"/gw/{self.group_watch}/events/"]  # fmt: skip

    def readers(self) -> list[tuple[str, list[str]]]:
        """The addresses whose views read query keys, with those keys."""
        s, w, g, gw = self.token, self.watch, self.group, self.group_watch
        stats = ["game", "currency", "sort", "dir"]
        return [(f"/s/{s}/poll/", ["v"]), (f"/w/{w}/poll/", ["v"]), (f"/s/{s}/hands/", ["from"]),
                (f"/g/{g}/matches/", ["page"]), (f"/gw/{gw}/matches/", ["page"]),
                (f"/g/{g}/stats/", stats), (f"/gw/{gw}/stats/", stats), ("/i18n/setlang/", ["next", "language"]),
                *((stream, ["v"]) for stream in self.streams())]  # fmt: skip

    def templates(self) -> list[str]:
        """Addresses with a {} where a token, game, number or language goes."""
        s, g, p = self.token, self.group, self.player
        return [
            "/s/{}/", "/s/{}/poll/", "/s/{}/events/", "/w/{}/poll/", "/w/{}/events/", "/s/{}/tap/",
            "/s/{}/hands.csv", f"/s/{s}/hands/{{}}/", "/g/{}/", "/g/{}/events/", "/gw/{}/stats/",
            f"/g/{g}/players/{{}}/", f"/g/{g}/players/{{}}/rename/", f"/g/{g}/players/{p}/{{}}/",
            "/start/{}/", f"/g/{g}/new/{{}}/", "/manifest.{}.webmanifest", "/static/{}", "/{}/",
        ]  # fmt: skip
