"""What an English voice can say, for synthesis and the dataset check alike: invisible characters
removed, Greek and Cyrillic transliterated (BGN/PCGN), other scripts and symbols without a reading left
out, each noted in the ``Sayable`` of ``english_sayable(text)``."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: Symbols read as words (spaces around them are collapsed later).
NAMED_SYMBOLS = {
    "->": " to ", "=>": " to ", "<=": " less than or equal to ", ">=": " greater than or equal to ",
    "<": " less than ", ">": " greater than ", "&": " and ", "%": " percent", "@": " at ", "+": " plus ",
    "=": " equals ", "#": " number ", "°": " degrees ", "×": " times ", "½": " one half ", "¼": " one quarter ",
    "±": " plus or minus ", "≤": " less than or equal to ", "≥": " greater than or equal to ",
    "≠": " not equal to ", "≈": " approximately ", "→": " to ", "÷": " divided by ", "∞": " infinity ",
    "√": " square root of ", "©": " copyright ", "®": " registered ", "™": " trademark ", "§": " section ",
    "¾": " three quarters ", "€": " euros ", "£": " pounds ", "¥": " yen ", "¢": " cents ",
}

_CYRILLIC = dict(zip("абвгдезийклмнопрстуфыэіґ", "abvgdeziyklmnoprstufyeig")) | {
    "ё": "yo", "ж": "zh", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ь": "", "ю": "yu",
    "я": "ya", "ї": "yi", "є": "ye", "ў": "w", "ј": "j", "љ": "lj", "њ": "nj", "ћ": "c", "ђ": "dj", "џ": "dz"}
_GREEK = dict(zip("αβγδεζηικλμνξοπρσςτυφω", "avgdeziiklmnxoprsstyfo")) | {"θ": "th", "χ": "ch", "ψ": "ps"}
_TRANSLITERATED = {"Cyrillic": _CYRILLIC, "Greek": _GREEK}
# Runs of letters of one script (with marks inside words); a script is the first word of the
# letter's Unicode name ("CYRILLIC", "CJK", "HIRAGANA", "ARABIC", ...).
_WORD_RE = re.compile(r"[^\W\d_]+(?:[\u0300-\u036f'’][^\W\d_]*)*")


@dataclass(frozen=True)
class Sayable:
    """``text`` given to the voice; ``transliterated`` / ``skipped_scripts``: scripts read as Latin or left
    out; ``skipped_symbols`` in order."""

    text: str
    transliterated: tuple[str, ...] = ()
    skipped_scripts: tuple[str, ...] = ()
    skipped_symbols: str = ""


def _invisible(ch: str) -> bool:
    o = ord(ch)
    return (unicodedata.category(ch) == "Cf" or 0xFE00 <= o <= 0xFE0F or 0xE0100 <= o <= 0xE01EF
            or o == 0x034F)  # combining grapheme joiner


def remove_invisible(text: str) -> str:
    """``text`` without zero-width and other invisible format characters (module docstring)."""
    return "".join(ch for ch in text if not _invisible(ch)) if not text.isascii() else text


def script_of(ch: str) -> str | None:
    """The script of letter ``ch`` outside Latin (``"Cyrillic"``, ``"CJK"``, ``"Hiragana"``, ...), else None."""
    if not ch.isalpha() or ord(ch) <= 0x24F:
        return None
    name = unicodedata.name(ch, "")
    if not name or name.startswith(("LATIN", "MODIFIER", "COMBINING")):
        return None
    script = name.split()[0]
    return script if len(script) <= 3 else script.title()


def _transliterate(word: str, table: dict[str, str]) -> str:
    base = unicodedata.normalize("NFD", word)
    out = "".join(table.get(ch.lower(), "" if unicodedata.combining(ch) else ch) for ch in base)
    return out[:1].upper() + out[1:] if word[:1].isupper() else out


def english_sayable(text: str) -> Sayable:
    """Make ``text`` something an English voice can say (module docstring). ``text`` should already
    have its named symbols spelled out (``text.normalize_english`` does both in order)."""
    text = remove_invisible(text)
    if text.isascii():
        return Sayable(text)
    transliterated: list[str] = []
    skipped: list[str] = []

    def word(m: re.Match) -> str:
        w = m.group(0)
        scripts = {s for s in map(script_of, w) if s}
        if not scripts:
            return w
        script = sorted(scripts)[0]
        if len(scripts) == 1 and script in _TRANSLITERATED:
            if script not in transliterated:
                transliterated.append(script)
            if script == "Greek" and len(w) == 1:
                return unicodedata.name(w).rsplit(" ", 1)[-1].lower() if "LETTER" in unicodedata.name(w, "") else ""
            return _transliterate(w, _TRANSLITERATED[script])
        for s in sorted(scripts):
            if s not in skipped:
                skipped.append(s)
        return " "

    text = _WORD_RE.sub(word, text)
    symbols = "".join(dict.fromkeys(ch for ch in text if not ch.isascii() and ch not in NAMED_SYMBOLS
                                    and unicodedata.category(ch) in ("So", "Sm", "Sk", "Sc")))
    kept = "".join(" " if ch in symbols else ch for ch in text)
    text = re.sub(r"[ \t]{2,}", " ", kept) if symbols or skipped else kept
    return Sayable(text, tuple(transliterated), tuple(skipped), symbols)
