"""Names beside other words in any script keep their own direction and stay next to their numbers
("عائشة 3" never "3 عائشة"). HTML: <bdi> (the `bdi` filter; `sentence` here). Plain screen text
(SVG, <title>): FSI/PDI (names.isolate); shared results: only right-to-left names (names.shared).
Files keep names as typed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe


def bdi(name: object) -> SafeString:
    """`name` in <bdi>, escaped: a name to put beside other words in HTML."""
    return format_html("<bdi>{}</bdi>", name)


def sentence(template: str, values: Mapping[str, object]) -> SafeString:
    """`template % values` as HTML: template and text values escaped, bdi(name) values kept, numbers as
    numbers. Notices and refusals naming players use it; they stay HTML through a message's cookie."""
    escaped = {key: conditional_escape(value) if isinstance(value, str) else value for key, value in values.items()}
    return mark_safe(conditional_escape(template) % escaped)  # noqa: S308 - everything escaped above


def joined(parts: Iterable[object], separator: str = " ") -> SafeString:
    """`parts` (notices: HTML from `sentence`, or plain text) joined as HTML, the plain ones escaped."""
    return mark_safe(conditional_escape(separator).join(str(conditional_escape(part)) for part in parts))  # noqa: S308
