"""Vietnamese: "5 thg 12, 2026" (the month is "thg" and its number), "23:30 5 thg 12, 2026", 1.000."""

DATE_FORMAT = SHORT_DATE_FORMAT = r"j \t\h\g n, Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = SHORT_DATETIME_FORMAT = r"H:i j \t\h\g n, Y"
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "."
NUMBER_GROUPING = 3
