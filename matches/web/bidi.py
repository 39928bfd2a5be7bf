"""Names beside other words, in any script: each keeps its own direction and stays next to its own
numbers, so that "عائشة 3" never shows as "3 عائشة" in a left-to-right line (issue 12).

Screens put a name in <bdi> (templates: the `bdi` filter; sentences built in Python: `sentence`
here, which makes the notice or message HTML, escaped but for the names' elements). Plain text on the
screen (a chart's label in SVG, a page's <title>) puts it between FSI and PDI instead (names.isolate);
the result a table shares with other apps only a right-to-left name (names.shared). The files (CSV,
the JSON archive) keep names as typed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe


def bdi(name: object) -> SafeString:
    """`name` in <bdi>, escaped: a name to put beside other words in HTML."""
    return format_html("<bdi>{}</bdi>", name)


def sentence(template: str, values: Mapping[str, object]) -> SafeString:
    """`template % values` as HTML: the (translated) template and every text value escaped, names
    given as bdi(name) kept as they are, numbers as numbers (for %(n)d). The notices and refusals that
    name players are built with it; a template renders them as they are, and they keep being HTML
    through a message's cookie."""
    escaped = {key: conditional_escape(value) if isinstance(value, str) else value for key, value in values.items()}
    return mark_safe(conditional_escape(template) % escaped)  # noqa: S308 - everything escaped above


def joined(parts: Iterable[object], separator: str = " ") -> SafeString:
    """`parts` (notices: HTML from `sentence`, or plain text) joined as HTML, the plain ones escaped."""
    return mark_safe(conditional_escape(separator).join(str(conditional_escape(part)) for part in parts))  # noqa: S308
