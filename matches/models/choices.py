"""The states a sitting and a hand can be in (imported by the models and by TableState alike)."""

from django.db import models
from django.utils.translation import gettext_lazy


class EndedHow(models.TextChoices):
    PLAYING = "", "in progress"
    MATCH_END = "match-end", "match end reached"
    ENDED_EARLY = "ended-early", "ended by a member"


class HandStatus(models.TextChoices):
    WON = "won", gettext_lazy("won")
    ABANDONED = "abandoned", gettext_lazy("abandoned")
