"""Dates, times and numbers per language (settings.FORMAT_MODULE_PATH): one form nobody misreads.

Dates give the day, the month's abbreviated name and the year ("5 Dec 2026", "5 déc. 2026",
"5. Dez. 2026", "5 thg 12, 2026"), never 12/05/2026, which half the world reads as 12 May; times
are on the 24-hour clock; whole numbers are grouped by thousands the way each language writes them
(1,000 / 1 000 / 1.000 / 1.000). The month names are Django's own translations. What a module here
leaves out comes from Django's format module for the language.
"""
