"""An SSML 1.1 subset (W3C speech-synthesis11) and plain text to the ``SpeechPart`` stream: ``speak``,
``break``, ``p`` / ``s``, ``say-as``, ``sub``, ``prosody rate``, ``voice``, ``phoneme``; values: docs/tts.md,
SSML. Expat, DTDs refused; malformed SSML raises ``SsmlError`` with line and column (1-based)."""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from xml.parsers import expat

from speechstudio.errors import UsageError
from speechstudio.tts.frontend.codes import spell_characters
from speechstudio.tts.lexicon import phoneme_mark
from speechstudio.tts.frontend.numbers import DAY_FIRST_LOCALES, cardinal, date_words, digits_words, ordinal, phone_words
from speechstudio.tts.frontend.text import has_speakable, iter_paragraph_sentences, iter_sentence_pauses

DEFAULT_SENTENCE_PAUSE_S = 0.25  # silence after every sentence but the last (s)
PARAGRAPH_PAUSE_S = 0.75
BREAK_STRENGTH_S = {"none": 0.0, "x-weak": 0.25, "weak": 0.5, "medium": 0.75, "strong": 1.0, "x-strong": 1.25}
RATE_NAMES = {"x-slow": 0.5, "slow": 0.64, "medium": 1.0, "default": 1.0, "fast": 1.55, "x-fast": 2.0}
#: What may come before the root element (XML 1.0 sec. 2.8 "prolog"): white space, the XML
#: declaration, comments, processing instructions, a DOCTYPE (recognised here, refused when parsed).
_PROLOG_ITEM = re.compile(r"\s+|<!--.*?-->|<\?.*?\?>|<!DOCTYPE[^>\[]*(?:\[[^\]]*\])?\s*>", re.DOTALL)
_SPEAK_ROOT = re.compile(r"<speak[\s>/]")
#: Lines of a text file read ahead, at most, to see whether a long prolog ends in <speak>.
_MAX_PROLOG_CHARS = 65536
_MAX_BREAK_S = 60.0
#: The elements and attributes read; any other is ignored, its text read, with one warning per document.
READ_ATTRIBUTES = {"speak": {"version"}, "break": {"strength", "time"}, "p": set(), "s": set(), "prosody": {"rate"},
                   "voice": {"name"}, "sub": {"alias"}, "phoneme": {"ph", "alphabet"},
                   "say-as": {"interpret-as", "format"}}


class SsmlError(UsageError):
    """Malformed or unsupported SSML; the message names the line and column (1-based)."""


@dataclass(frozen=True)
class SpeechPart:
    """One piece of the stream: ``text`` (one sentence; "" for silence), ``pause_s`` after it, ``length_scale``
    factor (from ``<prosody rate>``), ``voice`` (``<voice name>``; ``None``: the caller's), ``warnings`` for the
    user (the first part of an SSML document names the markup ignored)."""

    text: str
    pause_s: float = 0.0
    length_scale: float = 1.0
    voice: str | None = None
    warnings: tuple[str, ...] = field(default=(), compare=False)


def ssml_verdict(text: str) -> bool | None:
    """Whether ``text`` is SSML: True when ``<speak>`` comes first after an optional BOM and XML prolog;
    False when something else does; None when ``text`` ends inside the prolog (read more)."""
    text = text.lstrip("\ufeff")
    pos = 0
    while m := _PROLOG_ITEM.match(text, pos):
        pos = m.end()
    if _SPEAK_ROOT.match(text, pos):
        return True
    tail = text[pos:]
    if not tail or tail.startswith(("<!--", "<?", "<!DOCTYPE")) or "<speak".startswith(tail) or tail == "<speak":
        return None
    return False


def read_verdict(lines: Iterator[str]) -> tuple[bool | None, list[str]]:
    """:func:`ssml_verdict` of a document's first ``lines`` and the lines read: blank lines and the XML prolog, then
    the first element decides (at most ``_MAX_PROLOG_CHARS`` read); the rest of ``lines`` is left unread."""
    head: list[str] = []
    verdict = None
    for line in lines:
        head.append(line)
        seen = "".join(head)
        verdict = ssml_verdict(seen)
        if verdict is not None or len(seen) > _MAX_PROLOG_CHARS:
            break
    return verdict, head


def speech_parts(text: str | Iterable[str], language: str = "en", ssml: bool | None = None) -> Iterator[SpeechPart]:
    """``SpeechPart``s of plain text (split lazily) or SSML (``ssml=None``: when it starts with ``<speak``;
    ``True`` wraps text without a root). Raises ``SsmlError``."""
    if isinstance(text, str):
        verdict = ssml_verdict(text)
    else:
        lines = iter(text)
        verdict, head = read_verdict(lines) if ssml is None else (None, [])
        text = itertools.chain(head, lines)
    if ssml or (ssml is None and verdict is True):
        yield from parse_ssml(text if isinstance(text, str) else "".join(text), language)
    else:
        # longer pauses after paragraphs; one sentence of look-ahead: the last one has no pause
        pairs = itertools.pairwise(itertools.chain(iter_sentence_pauses(text, language), [None]))
        yield from (SpeechPart(sentence, pause if nxt is not None else 0.0) for (sentence, pause), nxt in pairs)


def _rate(value: str) -> float | None:
    """SSML rate -> speaking-rate factor (1.0 = voice default)."""
    v = value.strip().lower()
    if v in RATE_NAMES:
        return RATE_NAMES[v]
    m = re.fullmatch(r"([+-]?)(\d+(?:\.\d+)?)%", v)
    if m:
        pct = float(m.group(2))
        rate = 1.0 + (pct if m.group(1) == "+" else -pct) / 100.0 if m.group(1) else pct / 100.0
        return rate if rate > 0 else None
    m = re.fullmatch(r"\d+(?:\.\d+)?", v)
    return float(v) if m and float(v) > 0 else None


def _date(text: str, fmt: str | None, language: str) -> str | None:
    fields = re.findall(r"\d+", text)
    if fmt is None:
        day_first = language.lower().replace("_", "-") in DAY_FIRST_LOCALES
        fmt = {3: "ymd" if fields and len(fields[0]) == 4 else ("dmy" if day_first else "mdy"), 2: "md", 1: "y"}.get(
            len(fields), "")
    if len(fmt) != len(fields) or set(fmt) - set("ymd") or len(set(fmt)) != len(fmt):
        return None
    got = dict(zip(fmt, fields))
    month = int(got["m"]) if "m" in got else None
    day = int(got["d"]) if "d" in got else None
    if month is None:
        return cardinal(got["y"], year_ok=True) if fmt == "y" else None
    if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return None
    year = got.get("y")
    return date_words(int(year) if year else None, month, day, fmt.index("d") < fmt.index("m") if day else False,
                      year_text=year)


#: The interpret-as values read; any other is read as text, with the warning of an ignored element.
SAY_AS_READ = {"characters", "spell-out", "verbatim", "digits", "telephone", "date", "cardinal", "number", "ordinal"}


def _say_as(kind: str, text: str, fmt: str | None, language: str) -> str | None:
    """Spoken form of ``text`` for ``interpret-as=kind``; None when the content does not fit."""
    raw = text.strip()
    if kind in ("characters", "spell-out", "verbatim"):
        return spell_characters(raw)
    if kind == "digits":
        return digits_words(raw) if re.search(r"\d", raw) and not re.search(r"[^\d\s,.-]", raw) else None
    if kind == "telephone":
        return phone_words(raw) if re.fullmatch(r"\+?[\d\s().-]+", raw) and re.search(r"\d", raw) else None
    if kind == "date":
        return _date(raw, fmt, language)
    if kind in ("cardinal", "number"):
        return cardinal(raw) if re.fullmatch(r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?", raw) else None
    if kind == "ordinal":
        m = re.fullmatch(r"(\d+)(?:st|nd|rd|th)?\.?", raw, re.IGNORECASE)
        return ordinal(int(m.group(1))) if m else None
    return raw  # other interpret-as values: read as text (the normaliser handles numbers)


class _Builder:
    """Collects text runs and pauses from parser events into ``SpeechPart``s."""

    def __init__(self, language: str):
        self.language = language
        self.parts: list[list] = []  # [text, pause_s, length_scale, voice, explicit pause]
        self.buffer: list[str] = []
        self.key: tuple[float, str | None] = (1.0, None)

    def text(self, s: str, key: tuple[float, str | None]) -> None:
        if key != self.key and "".join(self.buffer).strip():
            closing = re.match(r"\s*[,.;:!?\u2026]+", s)   # "<prosody ...>now</prosody>!": the "!" ends "now"
            if closing:
                self.buffer.append(closing.group(0))
                s = s[closing.end():]
            self.flush(0.0, False)
        self.key = key
        self.buffer.append(s)

    def flush(self, pause: float, explicit: bool) -> None:
        text = re.sub(r"\s+([,.;:!?])", r"\1", " ".join("".join(self.buffer).split()))
        self.buffer.clear()
        if has_speakable(text):
            sentences = list(iter_paragraph_sentences(text, self.language))
            for i, sentence in enumerate(sentences):
                last = i == len(sentences) - 1
                self.parts.append([sentence, pause if last else DEFAULT_SENTENCE_PAUSE_S, self.key[0], self.key[1],
                                   explicit and last])
            return
        if not self.parts:
            if explicit and pause > 0:
                self.parts.append(["", pause, 1.0, None, True])  # a break before any text
            return
        last = self.parts[-1]
        if explicit:
            last[1] = last[1] + pause if last[4] else pause
            last[4] = True
        elif not last[4]:
            last[1] = max(last[1], pause)

    def result(self) -> list[SpeechPart]:
        self.flush(0.0, False)
        if self.parts and not self.parts[-1][4]:
            self.parts[-1][1] = 0.0  # no default pause after the last sentence; an explicit break stays
        return [SpeechPart(t, round(p, 6), ls, v) for t, p, ls, v, _ in self.parts]


def parse_ssml(text: str, language: str = "en") -> list[SpeechPart]:
    """Parse an SSML document (wrapped in ``<speak>`` if it has no root) into ``SpeechPart``s. Raises
    ``SsmlError`` ("SSML line L, column C: reason")."""
    shift = 0
    lines_before = 0
    if ssml_verdict(text) is not True:
        text, shift = "<speak>" + text + "</speak>", len("<speak>")
    else:  # expat refuses anything before an XML declaration: drop the BOM and blank lines, keep positions
        body = text.lstrip("\ufeff \t\r\n")
        lead = text[: len(text) - len(body)]
        lines_before = lead.count("\n")
        shift = -(len(lead) - (lead.rfind("\n") + 1))
        text = body
    parser = expat.ParserCreate()
    build = _Builder(language)
    stack: list[dict] = []
    ignored: set[str] = set()

    def where(line: int | None = None, offset: int = 0) -> str:
        line, offset = (parser.CurrentLineNumber, parser.CurrentColumnNumber) if line is None else (line, offset)
        return f"SSML line {line + lines_before}, column {max(offset + 1 - (shift if line == 1 else 0), 1)}"

    def key() -> tuple[float, str | None]:
        return (stack[-1]["ls"], stack[-1]["voice"]) if stack else (1.0, None)

    def start(tag: str, attrs: dict) -> None:
        if not stack and tag != "speak":
            raise SsmlError(f"{where()}: the root element must be <speak>, not <{tag}>")
        frame = {"tag": tag, "ls": key()[0], "voice": key()[1], "where": where()}
        read = READ_ATTRIBUTES.get(tag)
        ignored.update([f"<{tag}>"] if read is None else
                       (f"<{tag} {name}>" for name in attrs
                        if name not in read and ":" not in name and name != "xmlns"))
        if stack and stack[-1].get("capture") is not None and tag != "break":
            frame["capture"] = stack[-1]["capture"]  # markup inside say-as / sub content: keep only its text
        if tag == "break":
            pause = BREAK_STRENGTH_S.get(attrs.get("strength", "medium"))
            if pause is None:
                raise SsmlError(f"{where()}: <break strength={attrs['strength']!r}> must be one of "
                                f"{', '.join(BREAK_STRENGTH_S)}")
            if "time" in attrs:
                m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*", attrs["time"])
                pause = float(m.group(1)) / (1000.0 if m.group(2) == "ms" else 1.0) if m else None
                if pause is None or pause > _MAX_BREAK_S:
                    raise SsmlError(f"{where()}: <break time={attrs['time']!r}> must be like 500ms or 1.5s "
                                    f"(at most {_MAX_BREAK_S:g} s)")
            build.text("", key())
            build.flush(pause, True)
        elif tag in ("p", "s"):
            build.flush(PARAGRAPH_PAUSE_S if tag == "p" else DEFAULT_SENTENCE_PAUSE_S, False)
        elif tag == "prosody" and "rate" in attrs:
            rate = _rate(attrs["rate"])
            if rate is None:
                raise SsmlError(f"{where()}: <prosody rate={attrs['rate']!r}> must be x-slow..x-fast, "
                                f"a percentage or a positive number")
            frame["ls"] = key()[0] / rate
        elif tag == "voice":
            name = (attrs.get("name") or "").strip()
            if not name:
                raise SsmlError(f"{where()}: <voice> needs a name attribute")
            frame["voice"] = name
        elif tag == "sub":
            if "alias" not in attrs:
                raise SsmlError(f"{where()}: <sub> needs an alias attribute")
            build.text(" " + attrs["alias"] + " ", key())
            frame["capture"] = []  # the content is not read
        elif tag == "phoneme":
            if not (attrs.get("ph") or "").strip():
                raise SsmlError(f"{where()}: <phoneme> needs a ph attribute (IPA phonemes)")
            if attrs.get("alphabet", "ipa").strip().lower() != "ipa":
                raise SsmlError(f"{where()}: <phoneme alphabet={attrs['alphabet']!r}>: only alphabet=\"ipa\" is read")
            frame.update(capture=[], ph=attrs["ph"])
        elif tag == "say-as":
            if "interpret-as" not in attrs:
                raise SsmlError(f"{where()}: <say-as> needs an interpret-as attribute")
            frame.update(capture=[], kind=attrs["interpret-as"].strip().lower(), format=attrs.get("format"))
            if frame["kind"] not in SAY_AS_READ:
                ignored.add(f"<say-as interpret-as=\"{frame['kind']}\">")
        stack.append(frame)

    def end(tag: str) -> None:
        frame = stack.pop()
        if tag in ("p", "s"):
            build.flush(PARAGRAPH_PAUSE_S if tag == "p" else DEFAULT_SENTENCE_PAUSE_S, False)
        elif tag == "phoneme":
            build.text(" " + phoneme_mark(frame["ph"], "".join(frame["capture"])) + " ", key())
        elif tag == "say-as":
            content = "".join(frame["capture"])
            spoken = _say_as(frame["kind"], content, frame["format"], language)
            if spoken is None:
                raise SsmlError(f"{frame['where']}: <say-as interpret-as={frame['kind']!r}> cannot read "
                                f"{content.strip()[:40]!r}")
            build.text(" " + spoken + " ", key())

    def chars(data: str) -> None:
        if stack and stack[-1].get("capture") is not None:
            stack[-1]["capture"].append(data)
        else:
            build.text(data, key())

    def no_dtd(*_args) -> None:
        raise SsmlError(f"{where()}: a DOCTYPE / entity declaration is not allowed in SSML")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.StartDoctypeDeclHandler = no_dtd
    parser.EntityDeclHandler = no_dtd
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise SsmlError(f"{where(exc.lineno, exc.offset)}: {expat.errors.messages[exc.code]}") from None
    parts = build.result()
    if ignored and parts:
        said = f"SSML not supported, ignored (its text is read): {', '.join(sorted(ignored))}"
        parts[0] = replace(parts[0], warnings=(said,))
    return parts
