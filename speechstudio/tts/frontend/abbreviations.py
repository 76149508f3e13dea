"""Abbreviations and initials in English text: ``protect`` / ``unprotect`` hide a non-final full stop
("Vol. 3", "Dr. Who") from the sentence splitter; ``expand_abbreviations`` reads them ("pp. 12" -> "pages
12", "St. Louis" -> "Saint Louis"; reference-work ones ``before_numbers``); initials lose their dots."""
from __future__ import annotations

import re

#: Abbreviations read the same everywhere (lower case, without the dot).
ABBREVIATIONS = {
    "mr": "mister", "mrs": "missus", "ms": "miz", "dr": "doctor", "prof": "professor",
    "jr": "junior", "sr": "senior", "vs": "versus", "etc": "et cetera",
    "e.g": "for example", "i.e": "that is", "approx": "approximately", "cf": "compare", "ca": "circa",
    "esp": "especially", "ibid": "ibidem", "viz": "namely", "avg": "average",
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
    "jul": "july", "aug": "august", "sep": "september", "sept": "september", "oct": "october",
    "nov": "november", "dec": "december", "mt": "mount", "ft": "feet", "lb": "pounds",
    "kg": "kilograms", "km": "kilometers", "cm": "centimeters", "mm": "millimeters",
    "inc": "incorporated", "ltd": "limited", "corp": "corporation", "dept": "department",
    "univ": "university", "govt": "government", "ave": "avenue", "blvd": "boulevard", "rd": "road",
    "capt": "captain", "col": "colonel", "gen": "general", "lt": "lieutenant", "sgt": "sergeant",
    "rev": "reverend", "hon": "honorable", "gov": "governor", "sen": "senator", "rep": "representative",
    "tel": "telephone", "co": "company", "bros": "brothers", "intl": "international", "assn": "association",
    "mfg": "manufacturing", "pres": "president",
}
#: Abbreviations of reference works, read before a number ("Vol. 3", "pp. 12-14", "Fig. 2").
REFERENCE_ABBREVIATIONS = {
    "vol": "volume", "vols": "volumes", "p": "page", "pp": "pages", "fig": "figure", "figs": "figures",
    "eq": "equation", "eqs": "equations", "sec": "section", "ch": "chapter", "chap": "chapter",
    "no": "number", "nos": "numbers", "art": "article", "para": "paragraph", "ex": "example",
    "approx": "approximately", "ca": "circa", "c": "circa", "ed": "edition", "pt": "part",
}
# Titles before a name never end a sentence ("Dr. Smith"); the rest do not before a number or a
# lower-case word ("approx. ten", "cf. the appendix").
_TITLES = ("mr", "mrs", "ms", "dr", "prof", "mt", "capt", "col", "gen", "lt", "sgt", "rev", "hon", "gov",
           "sen", "rep", "pres")
_NONFINAL = sorted(set(REFERENCE_ABBREVIATIONS) | {"approx", "cf", "ca", "esp", "vs", "viz", "et al", "tel"} | set(_TITLES),
                   key=len, reverse=True)
_HIDE_RE = re.compile(r"\b(" + "|".join(re.escape(a) for a in _NONFINAL) + r")\.(?=\s+(\S))", re.IGNORECASE)
_HIDDEN_DOT = "\ue013"

_ABBR_RE = re.compile(
    r"\b(" + "|".join(re.escape(a) for a in sorted(ABBREVIATIONS, key=len, reverse=True)) + r")\.(?=\s|$)",
    re.IGNORECASE,
)
_REF_RE = re.compile(r"\b(" + "|".join(re.escape(a) for a in sorted(REFERENCE_ABBREVIATIONS, key=len, reverse=True))
                     + r")\.\s*(?=[-−]?\d)", re.IGNORECASE)
_ET_AL_RE = re.compile(r"\bet al\.", re.IGNORECASE)
# Weekdays in a range or list ("Mon-Fri", "Tue. and Fri.") or before a number ("Sat 5 May"); alone "Sun" is a word.
_WEEKDAYS = {"Mon": "Monday", "Tue": "Tuesday", "Tues": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday",
             "Thur": "Thursday", "Thurs": "Thursday", "Fri": "Friday", "Sat": "Saturday", "Sun": "Sunday"}
_DAY = r"\b(?:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\b(?:\.(?!\s*$))?"
_WEEKDAY_RE = re.compile(rf"{_DAY}(?:(?:\s?[-–—]\s?|,\s*|,?\s+(?:to|through|and|or)\s+){_DAY})+|{_DAY}(?=,?\s+\d)")
# "St." before a capitalised name is "Saint" ("St. Louis"), otherwise "street" ("Main St.").
_SAINT_RE = re.compile(r"\bSt\.(?=\s+[A-Z])")
_STREET_RE = re.compile(r"\b[Ss]t\.(?=\s|$)")
# After a street's name (a capitalised word not first in its sentence), not before a name: "Elm Dr. today",
# "Downing St, London" (Drive, Street); "Dr. Smith", "St Paul" stay doctor and saint.
_ROAD_RE = re.compile(r"(?<=\S )([A-Z][a-z]+ )(?:(Dr)\.(?!\s+[A-Z])|(St)(?=[,;]|$))")
# An initial: one capital letter and a dot, then a capitalised word or another initial.
_INITIAL_RE = re.compile(r"(?<![\w.])([A-Z])\.(?=\s+[A-Z])")
_SENTENCE_STARTS = frozenset(
    "The A An This That These Those Then There Here It Its He She We They I You His Her Our Their My Your "
    "In On At But And So If When While After Before As Now Yet Still Also However Next Finally Later Today "
    "What Why How Who Where Which Some All No Not One Each Every".split())


# A unit's dot after a number before a lower-case word ("2 tbsp. oil", "5 min. or until golden") ends no sentence.
_UNIT_DOT_RE = re.compile(r"(?<=\d)(\s?(?:tbsp|tsp|oz|lbs?|min|mins|hrs?|secs?|ft|yds?|mi|pts?|qts?|gal|doz|pkg|approx))"
                          r"\.(?=\s+[a-z])")


def protect(text: str) -> str:
    """``text`` with the dot of every abbreviation that does not end its sentence hidden (module docstring)."""
    text = _UNIT_DOT_RE.sub(lambda m: m.group(1) + _HIDDEN_DOT, text)

    def hide(m: re.Match) -> str:
        word, following = m.group(1).lower(), m.group(2)
        if following.isdigit() or following == "+" or following.islower() or (word in _TITLES and following.isupper()):
            return m.group(1) + _HIDDEN_DOT
        return m.group(0)

    return _HIDE_RE.sub(hide, text)


def unprotect(text: str) -> str:
    """Undo ``protect``."""
    return text.replace(_HIDDEN_DOT, ".")


def _final_dot(m: re.Match) -> str:
    """"." when an abbreviation's dot also ends the sentence ("... etc."), so the pause stays."""
    return "." if not m.string[m.end():].strip() else ""


def expand_abbreviations(text: str, before_numbers: bool = False) -> str:
    """Read the abbreviations and initials of one sentence (module docstring for the two passes)."""
    if before_numbers:
        text = _UNIT_DOT_RE.sub(r"\1", text)         # "2 tbsp. oil": the numbers read "2 tbsp"
        text = _REF_RE.sub(lambda m: m.group(0) if m.group(1) == "C" else  # "vitamin C. 3 tablets"
                           REFERENCE_ABBREVIATIONS[m.group(1).lower()] + " ", text)
        text = _WEEKDAY_RE.sub(lambda m: re.sub(r"\s?[-–—]\s?", " to ", re.sub(
            r"\b([A-Z][a-z]+)\.?", lambda d: _WEEKDAYS.get(d[1], d[0]), m.group(0))), text)
        return _ET_AL_RE.sub(lambda m: "et al" + _final_dot(m), text)
    text = _STREET_RE.sub(lambda m: "street" + _final_dot(m), _SAINT_RE.sub("Saint", text))
    text = _ROAD_RE.sub(lambda m: m.group(1) + ("drive" + _final_dot(m) if m.group(2) else "street"), text)
    text = _ABBR_RE.sub(lambda m: ABBREVIATIONS[m.group(1).lower()] + _final_dot(m), text)
    return _INITIAL_RE.sub(_initial, text)


def _initial(m: re.Match) -> str:
    """"J. K. Rowling" -> "J K Rowling"; "plan B. Then we left" keeps its dot: before a word that
    usually starts a sentence (``_SENTENCE_STARTS``) the letter more likely ends one the splitter kept."""
    following = re.match(r"\s+([A-Z][a-z']*)", m.string[m.end():])
    if following and following.group(1) in _SENTENCE_STARTS:
        return m.group(0)
    return "A-" if m.group(1) == "A" else m.group(1)
