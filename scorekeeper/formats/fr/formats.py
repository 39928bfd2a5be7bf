"""French: "5 déc. 2026", "5 déc. 2026, 23:30", 1 000 (a no-break space between the thousands)."""

DATE_FORMAT = SHORT_DATE_FORMAT = "j N Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = SHORT_DATETIME_FORMAT = "j N Y, H:i"
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "\xa0"
NUMBER_GROUPING = 3
