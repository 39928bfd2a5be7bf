"""No link token in the server log. A sitting's or a group's link (/s/, /w/, /g/, /gw/ then its token)
is all it takes to change that table, so a logged path ("Not Found: /s/<token>/", a refused CSRF
check, an access log line) would hand it to whoever reads the log. Each token in a line is replaced by
a label that grants nothing: the first hex digits of an HMAC of the token under SECRET_KEY, so the
lines of one table still read together ("/s/~3f9a0c2e/tap/").

The filter is applied as each record is made (the log record factory), not on one handler: every
handler of the process then gets the record without its token (Django's, gunicorn's error and access
logs that uvicorn's loggers share, a test's capture), and so does a record that propagates from a
logger below one with a filter. Installed by Django's logging set-up (settings.LOGGING_CONFIG)."""

from __future__ import annotations

import hashlib
import hmac
import logging
import logging.config
import re

from django.conf import settings

# A link's first segment, then its token (any segment there: a malformed one hides too), the slashes
# plain or percent-encoded (an address in a query string), one or more ("//s//<token>/" reaches the table
# too). A label starts with "~": never matched again.
LINK = re.compile(r"((?:/|%2F)+(?:s|w|g|gw)(?:/|%2F)+)([A-Za-z0-9_-]+)", re.IGNORECASE)
# A token elsewhere in an address (a link mangled on its way: "/x/<token>/", "/<token>", "<token>.js"; a Host
# header, quoted in Django's refusal: "'<token>.lan.test'"): any run of a token's 22 characters, whole, after a
# slash, a dot, a quote or an equals sign.
LOOSE = re.compile(r"(?:(?<=[/.'\"=])|(?<=%2F))[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])", re.IGNORECASE)
# A database's error quotes the statement it failed on, its values written in (PostgreSQL's "LINE 1: SELECT
# ... WHERE "token" = 'Cw39...", cut anywhere, the caret under it, and its DETAIL, CONTEXT and QUERY lines): no
# label fits a token cut short, so those lines go; the error's first line says what happened.
STATEMENT = re.compile(r"^[ \t]*(?:LINE \d+:|DETAIL:|CONTEXT:|QUERY:).*(?:\n[ \t]*\^[ \t]*$)?\n?", re.MULTILINE)
TRACEBACK = logging.Formatter()


def label(token: str) -> str:
    """What the log says for `token`: the same for the same token, and no way back to it."""
    digest = hmac.new(settings.SECRET_KEY.encode(), b"log label " + token.encode(), hashlib.sha256)
    return "~" + digest.hexdigest()[:8]


def hidden(text: str) -> str:
    return links_hidden(STATEMENT.sub("", text))


def links_hidden(text: str) -> str:
    return LOOSE.sub(lambda found: label(found[0]), LINK.sub(lambda found: found[1] + label(found[2]), text))


def tells_secrets(text: str) -> bool:
    return bool(LINK.search(text) or LOOSE.search(text) or STATEMENT.search(text))


class HideLinkTokens(logging.Filter):
    """Rewrites a record so that neither its message, its arguments nor its error text holds a token."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):  # (a statement's lines are taken out of the message once formatted)
            record.msg = links_hidden(record.msg)
        if isinstance(record.args, tuple):  # each argument alone: formatters that read them still can
            record.args = tuple(self.argument(value) for value in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: self.argument(value) for key, value in record.args.items()}
        try:
            message = record.getMessage()
        except Exception:  # a logging call with the wrong arguments: logging reports it when it is shown
            return True
        if tells_secrets(message):  # a token split between the message and its arguments
            record.msg, record.args = hidden(message), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = hidden(TRACEBACK.formatException(record.exc_info))
        return True

    @staticmethod
    def argument(value: object) -> object:
        if isinstance(value, (int, float)) or value is None:
            return value
        try:
            text = str(value)
        except Exception:  # shown as logging shows any argument that cannot be written
            return value
        return hidden(text) if tells_secrets(text) else value


class WithoutTraceback(logging.Filter):
    """A client's mistake (a body too big, too many fields) in one line: its traceback tells nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info, record.exc_text = None, None
        return True


def hide_link_tokens() -> None:
    """Every record made from now on in this process passes through HideLinkTokens (once)."""
    made = logging.getLogRecordFactory()
    if getattr(made, "hides_link_tokens", False):
        return
    hide = HideLinkTokens()

    def record(*args, **kwargs) -> logging.LogRecord:
        made_record = made(*args, **kwargs)
        hide.filter(made_record)
        return made_record

    record.hides_link_tokens = True
    logging.setLogRecordFactory(record)


def configure(config: dict) -> None:
    """settings.LOGGING_CONFIG: the logging dictionary, then the filter on every record."""
    logging.config.dictConfig(config)
    hide_link_tokens()
