"""Text written for machines, read as a person would: URLs, e-mail addresses, paths, hashes (over
``LONG_CODE_CHARS``: the first ``SHORT_CODE_CHARS`` and "and so on") and alphanumeric codes ("B A one one
seven"); a spelled "A" is ``A-`` for espeak-ng. Examples: docs/tts.md, Text front end."""
from __future__ import annotations

import re

from speechstudio.tts.frontend.numbers import LABEL_WORDS, cardinal, digits_words, identifier_words

#: Codes longer than this are summarised (a 40-character SHA-1 would take ~15 s to spell).
LONG_CODE_CHARS = 16
#: Characters read of a summarised code: git's default abbreviated hash length (``core.abbrev``).
SHORT_CODE_CHARS = 7

_CHAR_NAMES = {".": "dot", "/": "slash", "\\": "backslash", "-": "dash", "_": "underscore", "?": "question mark",
               "=": "equals", "&": "and", "#": "hash", "~": "tilde", ":": "colon", "+": "plus", "@": "at",
               "%": "percent"}
# Top-level domains a bare name ("example.org") is read as a web address with; short ones that are
# also words ("at", "be", "it", "me", "no", "us") only with a scheme or "www.".
_TLDS = "com|org|net|edu|gov|io|dev|ai|app|info|co|uk|de|fr|nl|eu|ca|au|jp|ru|ch|se|dk|fi|pl|tv|gg|xyz|site|online|tech|cloud"
_TRAIL = ".,;:!?)]}'\""
_URL_RE = re.compile(r"\b(?:(?:https?|ftp|file)://|www\.)[^\s<>\"']+"
                     r"|\b[A-Za-z0-9][\w-]*(?:\.[A-Za-z0-9][\w-]*)*\.(?:" + _TLDS + r")\b(?:/[^\s<>\"']*)?",
                     re.IGNORECASE)
_EMAIL_RE = re.compile(r"\b[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\b")
_UNIX_PATH_RE = re.compile(r"(?<![\w/.~%])(?:~|\.{1,2})?/(?:[\w.+-]+/)*[\w.+-]*[A-Za-z_][\w.+-]*/?(?=[\s,;:!?)\]]|$|\.(?:\s|$))")
_WIN_PATH_RE = re.compile(r"\b[A-Za-z]:\\(?:[^\\\s<>\"|?*]+\\)*[^\\\s<>\"|?*]*")
_FILE_RE = re.compile(r"\b[\w-]+(?:\.[\w-]+)*\.(?:txt|md|py|json|csv|tsv|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|svg"
                      r"|mp3|wav|flac|ogg|m4a|mp4|mkv|zip|tar|gz|exe|dll|html?|css|js|ts|yaml|yml|toml|ini|cfg|sh"
                      r"|bat|cpp|rs|go|java|log|xml|epub|onnx|bin)\b")
# A code: letters and digits only, at least one of each, not inside a longer word or number, not
# an amount ("$5M": numbers.py).
_CODE_RE = re.compile(r"(?<![\w.\-/$£€¥:])(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,}(?![\w/]|\.\w|-\w)")
_LABELLED_RE = re.compile(r"\b(?:" + LABEL_WORDS + r")\.?\s+(?:no\.?\s*|number\s+|#\s*)?(\d{1,5})([A-Za-z])\b", re.IGNORECASE)
# Unit letters and suffixes a number keeps ("5m", "4th", "10am"): numbers.py reads those.
_NOT_CODE_SUFFIX = re.compile(r"\d+(?:st|nd|rd|th|s|am|pm|[kKMGTP]?B|[kKMG]?Hz|[kmcµnu]?[mgsLlVWA]|[km]m|x|X|h|d|y"
                              r"|ft|in|mi|lb|lbs|oz|kg|km|mph|kph|fps|px|dB|bn|K|k|M|mAh|kWh|kW|mV|mA|ms)")
_PROTECT = {".": "\ue010", "?": "\ue011", "!": "\ue012"}
_UNPROTECT = {v: k for k, v in _PROTECT.items()}


def spell_characters(chars: str) -> str:
    """Letters and digits of ``chars`` one by one (``"786a3f"`` -> ``"seven eight six A- three F"``;
    letters as capitals, other characters by name or not at all)."""
    said = (digits_words(ch) if ch.isdigit() else ("A-" if ch in "aA" else ch.upper())
            if ch.isalpha() and ch.isascii() else _CHAR_NAMES.get(ch) for ch in chars)
    return " ".join(w for w in said if w)


def _word_or_code(part: str) -> str:
    """One piece of a URL / path between separators: words stay, numbers are numbers, codes spelled."""
    if part.isdigit():
        return cardinal(part) if len(part) <= 4 and not part.startswith("0") else digits_words(part)
    if part.isalpha():
        return part if len(part) > 1 or part.lower() not in "a" else "A-"
    return _code(part)


def _spoken_piece(text: str) -> str:
    """A URL / address / path: pieces between separators read, separators named."""
    said = (_word_or_code(t) if re.fullmatch(r"[A-Za-z0-9]+", t) else _CHAR_NAMES.get(t)
            for t in re.split(r"([^A-Za-z0-9])", text))
    return " ".join(w for w in said if w)


def _strip_trailing(m: re.Match) -> tuple[str, str]:
    """``(token, trailing punctuation)``: a sentence's full stop or a closing bracket is not part of it."""
    token = m.group(0)
    core = token.rstrip(_TRAIL)
    return core, token[len(core):]


def _url(m: re.Match) -> str:
    url, tail = _strip_trailing(m)
    body = re.sub(r"^(?:https?|ftp|file)://", "", url, flags=re.IGNORECASE)
    www = body.lower().startswith("www.")
    return ("w w w dot " if www else "") + _spoken_piece(body[4 if www else 0:].rstrip("/")) + tail


def _path(m: re.Match) -> str:
    path, tail = _strip_trailing(m)
    return ("home " + _spoken_piece(path[1:]) if path.startswith("~") else _spoken_piece(path)) + tail


def _win_path(m: re.Match) -> str:
    path, tail = _strip_trailing(m)
    return f"{path[0].upper()} colon " + _spoken_piece(path[2:]) + tail


def _runs(code: str) -> list[str]:
    return re.findall(r"[A-Za-z]+|\d+", code)


def _code(code: str) -> str:
    """A letters-and-digits code (module docstring): spelled, summarised, or letters + number."""
    runs = _runs(code)
    if len(runs) >= 3:
        if len(code) > LONG_CODE_CHARS:
            return spell_characters(code[:SHORT_CODE_CHARS]) + ", and so on,"
        return spell_characters(code)
    letters, digits = (runs[0], runs[1]) if runs[0].isalpha() else (runs[1], runs[0])
    if runs[0].isalpha():  # BA117, F16, COVID19, iPhone15
        spell = len(letters) <= 2 or (letters.isupper() and len(letters) <= 4)
        head = spell_characters(letters) if spell else letters
        if digits.startswith("0") or len(digits) == 3 or len(digits) > 4:
            tail = digits_words(digits)
        else:  # "F16" -> "sixteen", "FY2024" -> "twenty twenty four"; "RTX4090" -> digit by digit
            tail = cardinal(digits, year_ok=True) if len(digits) <= 2 or 1100 <= int(digits) <= 2099 else digits_words(digits)
        return f"{head} {tail}"
    return f"{identifier_words(digits)} {spell_characters(letters)}"


def _maybe_code(m: re.Match) -> str:
    code = m.group(0)
    runs = _runs(code)
    if re.fullmatch(r"\d+[eExX]\d+", code):
        return code  # "3e8", "6x10^23", "1920x1080": scientific notation and sizes, numbers.py
    if len(runs) == 2 and runs[0].isdigit():
        # "42B" bytes, "5km", "4th", "10am", "3x": numbers.py reads units, ordinals and times;
        # only one capital letter that is no unit ("12C", "7D") is a label here.
        if _NOT_CODE_SUFFIX.fullmatch(code) or not (len(runs[1]) == 1 and runs[1].isupper()):
            return code
    if len(runs) == 2 and runs[0].isalpha() and runs[0].islower() and len(runs[0]) > 1:
        return code  # "mp3", "h264", "ipv6": numbers.py keeps letters and number apart
    return _code(code)


def read_codes(text: str) -> str:
    """Rewrite URLs, e-mail addresses, paths, file names, hashes and codes in ``text`` as words, before
    ``numbers.spell_numbers``; other text unchanged."""
    text = _EMAIL_RE.sub(lambda m: _spoken_piece(m.group(0)), text)
    text = _URL_RE.sub(_url, text)
    text = _WIN_PATH_RE.sub(_win_path, text)
    text = _UNIX_PATH_RE.sub(_path, text)
    text = _FILE_RE.sub(lambda m: _spoken_piece(m.group(0)), text)
    text = _LABELLED_RE.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)] + f"{identifier_words(m.group(1))} "
                            f"{spell_characters(m.group(2))}", text)
    return _CODE_RE.sub(_maybe_code, text)


def protect(text: str) -> str:
    """``text`` with the ``. ? !`` inside URLs, e-mail addresses and paths replaced by private-use
    characters of the same length, so a sentence splitter does not cut there."""

    def hide(m: re.Match) -> str:
        token, tail = _strip_trailing(m)
        return "".join(_PROTECT.get(ch, ch) for ch in token) + tail

    for pattern in (_EMAIL_RE, _URL_RE, _WIN_PATH_RE, _UNIX_PATH_RE, _FILE_RE):
        text = pattern.sub(hide, text)
    return text


def unprotect(text: str) -> str:
    """Undo ``protect``."""
    return "".join(_UNPROTECT.get(ch, ch) for ch in text) if any(ch in _UNPROTECT for ch in text) else text
