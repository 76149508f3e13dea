"""Dates with a month name read with an ordinal day, in the order written ("March 3rd, 2024" -> "March
third, twenty twenty four", "4 June" -> "the fourth of June"; piper#492). Capitalised month, a valid day,
no unit or time after it. Numeric dates: ``numbers.py``."""
from __future__ import annotations

import re

from speechstudio.tts.frontend.numbers import date_words

_MONTHS = {"January": 1, "February": 2, "March": 3, "April": 4, "May": 5, "June": 6, "July": 7, "August": 8,
           "September": 9, "October": 10, "November": 11, "December": 12,
           "Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9, "Sept": 9, "Oct": 10,
           "Nov": 11, "Dec": 12}
_DAYS_IN = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")(?:(?<=[A-Z][a-z]{2})\.|(?<=Sept)\.)?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4})(?![\d:]))?"
# After the day: not a digit, unit letter, time or decimal ("May 5 km", "June 3:30", "June 3.5").
_END = r"(?![\d:]|\.\d|\s?(?:%|[a-zA-Z]{1,3}\b(?<!\bof)(?<!\bon)(?<!\bat)(?<!\bin)(?<!\bto)(?<!\band)(?<!\bor)))"
_MONTH_DAY_RE = re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r"\b" + _END + _YEAR)
_DAY_MONTH_RE = re.compile(r"(?<![\w.,/-])(?<!the )" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r"(?![A-Za-z])" + _YEAR)


def _words(month_name: str, day: str, year: str | None, day_first: bool, raw: str) -> str:
    month, d = _MONTHS[month_name], int(day)
    if not 1 <= d <= _DAYS_IN[month - 1]:
        return raw
    return date_words(int(year) if year else None, month, d, day_first, year_text=year)


def read_month_dates(text: str) -> str:
    """Rewrite dates with a month name in ``text`` as words (module docstring); other text unchanged."""
    text = _MONTH_DAY_RE.sub(lambda m: _words(m.group(1), m.group(2), m.group(3), False, m.group(0)), text)
    return _DAY_MONTH_RE.sub(lambda m: _words(m.group(2), m.group(1), m.group(3), True, m.group(0)), text)
