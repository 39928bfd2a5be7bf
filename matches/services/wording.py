"""The rules' refusals in the reader's language: for a service that words its own errors (the group
archive) and for the web layer (matches.web.texts re-exports it)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from matches.domain import rules


def rule_message(error: rules.RuleError) -> str:
    """A RuleError in the active language: its template and every text parameter translated."""
    params = {key: _(value) if isinstance(value, str) and value else value for key, value in error.params.items()}
    return _(error.template) % params if params else _(error.template)
