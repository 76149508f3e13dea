"""User pronunciation lexicon (``<data dir>/lexicon/<lang>.tsv``: ``WORD<TAB>respelling or /IPA/``) and
inline phoneme marks (SSML ``<phoneme>``), applied before phonemization; whole words, case-insensitive,
longest first. Symbols: docs/tts.md, Pronunciations."""
from __future__ import annotations

import functools
import os
import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from speechstudio.atomic import atomic_write_text
from speechstudio.errors import UsageError
from speechstudio.hub.paths import data_dir
from speechstudio.tts.phonemize import espeak_phonemes, plain_tokenizer
from speechstudio.tts.frontend.text import has_speakable, normalize_english

PHONEME_OPEN, PHONEME_SEP, PHONEME_CLOSE = "\ue000", "\ue001", "\ue002"
_MARK_RE = re.compile(f"{PHONEME_OPEN}([^{PHONEME_SEP}{PHONEME_CLOSE}]*){PHONEME_SEP}([^{PHONEME_CLOSE}]*){PHONEME_CLOSE}")
_ASCII_IPA = {"g": "ɡ", ":": "ː", "'": "ˈ"}
_MAX_ENTRIES = 100_000


class LexiconError(UsageError):
    """A lexicon file line that cannot be read, or whose IPA the voice cannot say; the message names the file
    and line."""


def unsayable(ipa: str, symbols: Collection[str]) -> str:
    """The characters of ``ipa`` (as ``clean_ipa`` left it) that are not in ``symbols`` (a voice's phonemes),
    each once, in order; white space is not counted. "" when the voice can say all of it."""
    return "".join(dict.fromkeys(ch for ch in ipa if ch not in symbols and not ch.isspace()))


def not_ipa(pronunciation: str) -> str:
    """Why a ``/IPA/`` pronunciation is refused: the sentence naming its characters that no IPA has (a
    snowman, an emoji); "" for a respelling or IPA made of letters, marks, modifiers (stress, length, tone
    letters) and digits. The CLI's ``lexicon add`` and the Pronunciations dialog show it as it is."""
    pron = pronunciation.strip()
    if not (len(pron) > 2 and pron[0] == pron[-1] == "/"):
        return ""
    bad = "".join(dict.fromkeys(ch for ch in clean_ipa(pron) if not ch.isspace() and not ch.isdigit()
                                and unicodedata.category(ch)[0] not in "LM" and unicodedata.category(ch) != "Sk"
                                and ch not in "'-‿|‖↓↑"))
    return bad and (f"{pron} is not IPA ({bad}): write /IPA/ as espeak-ng does (/ŋwˈɪn/), or a respelling "
                    "without slashes")


def voice_phonemes(voice) -> Collection[str]:
    """The phoneme symbols a voice that reads IPA knows: its Piper ``phoneme_id_map`` keys, or its
    transformers tokenizer's vocabulary."""
    if voice.has_phoneme_map:
        return voice.piper.phoneme_id_map
    return plain_tokenizer(voice.tokenizer).get_vocab()


def clean_ipa(ipa: str) -> str:
    """IPA as espeak-ng writes it: ASCII look-alikes mapped, syllable dots dropped, blanks collapsed."""
    ipa = " ".join(ipa.strip().strip("/[]").split())
    return "".join(_ASCII_IPA.get(ch, ch) for ch in ipa if ch != ".")


def phoneme_mark(ipa: str, word: str) -> str:
    """Inline phonemes for a sentence: ``word`` is what letter-reading voices say instead."""
    return f"{PHONEME_OPEN}{clean_ipa(ipa)}{PHONEME_SEP}{' '.join(_strip_marks(word).split())}{PHONEME_CLOSE}"


def split_marks(text: str) -> list[tuple[str, str | None]]:
    """``[(text, None) | (word, ipa), ...]`` in order; stray mark characters are dropped."""
    parts = _MARK_RE.split(text)  # text, ipa, word, text, ..., text
    out: list[tuple[str, str | None]] = []
    for i in range(0, len(parts), 3):
        out += [(_strip_marks(parts[i]), None)] if parts[i] else []
        out += [(parts[i + 2], parts[i + 1])] if i + 2 < len(parts) else []
    return out


def _strip_marks(text: str) -> str:
    return re.sub(f"[{PHONEME_OPEN}{PHONEME_SEP}{PHONEME_CLOSE}]", "", text)


@dataclass
class Lexicon:
    """Word -> pronunciation. ``entries``: lower-cased word (or words) -> ``(respelling, ipa)``, one
    of them set. ``path``: the file it came from, if any."""

    entries: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    path: Path | None = None
    line_of: dict[str, int] = field(default_factory=dict, repr=False)  # entry -> line in ``path``
    _pattern: re.Pattern | None = field(default=None, repr=False)

    def add(self, word: str, pronunciation: str, line: int | None = None) -> None:
        """Add one entry: ``pronunciation`` is a respelling, or IPA between slashes (``/ŋwˈɪn/``); ``line``: its
        line in ``path`` (named in errors)."""
        word, pron = " ".join(word.split()), pronunciation.strip()
        if not word or not pron or not any(ch.isalnum() for ch in word):
            raise LexiconError(f"lexicon entry {word!r} -> {pron!r}: both a word and a pronunciation are needed")
        is_ipa = len(pron) > 2 and pron[0] == pron[-1] == "/"
        self.entries[word.lower()] = (None, clean_ipa(pron)) if is_ipa else (pron, None)
        if line is not None:
            self.line_of[word.lower()] = line
        self._pattern = None

    def pattern(self) -> re.Pattern | None:
        if self._pattern is None and self.entries:
            words = sorted(self.entries, key=len, reverse=True)
            alts = "|".join(r"\s+".join(re.escape(w) for w in k.split()) for k in words)
            self._pattern = re.compile(rf"(?<![\w{PHONEME_OPEN}])({alts})(?!\w)", re.IGNORECASE)
        return self._pattern

    def apply(self, text: str, symbols: Collection[str] | None = None, voice_name: str = "") -> str:
        """``text`` with every entry replaced: a respelling as text, IPA as a ``phoneme_mark``.
        Text inside existing marks (SSML ``<phoneme>``) is left alone. ``symbols``: the phonemes of the voice
        ``voice_name`` (``voice_phonemes``); an entry used here whose IPA has others raises ``LexiconError``
        naming the file, line and those symbols (entries the text does not use are not checked)."""
        pat = self.pattern()
        if pat is None:
            return text

        def replace(m: re.Match) -> str:
            key = " ".join(m.group(1).lower().split())
            respelling, ipa = self.entries[key]
            if respelling is not None:
                return respelling
            lacking = unsayable(ipa, symbols) if symbols is not None else ""
            if lacking:
                where = f"{self.path}:{self.line_of[key]}" if self.path and key in self.line_of else "lexicon"
                raise LexiconError(f"{where}: {key!r} -> /{ipa}/: voice {voice_name} cannot say "
                                   f"{' '.join(lacking)} (not among its phonemes; use the symbols espeak-ng writes, "
                                   f"docs/tts.md, Pronunciations, or give a respelling)")
            return phoneme_mark(ipa, m.group(1))

        return "".join(phoneme_mark(ipa, word) if ipa is not None else pat.sub(replace, word)
                       for word, ipa in split_marks(text))

    def lines(self) -> list[str]:
        """The entries as file lines (``WORD<TAB>respelling`` or ``WORD<TAB>/ipa/``), sorted."""
        return [f"{w}\t{r if r is not None else '/' + i + '/'}" for w, (r, i) in sorted(self.entries.items())]


def load_lexicon(path: str | os.PathLike) -> Lexicon:
    """Read a lexicon file (format in the module docstring). Raises ``LexiconError`` naming
    ``path:line`` for a line without a tab-separated pronunciation, or a non-UTF-8 file."""
    path = Path(path)
    lex = Lexicon(path=path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LexiconError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if "\t" not in line:
            raise LexiconError(f"{path}:{n}: expected WORD<TAB>PRONUNCIATION, got {line.strip()[:60]!r}")
        word, pron = line.split("\t", 1)
        try:
            lex.add(word, pron, n)
        except LexiconError as exc:
            raise LexiconError(f"{path}:{n}: {exc}") from None
        if len(lex.entries) > _MAX_ENTRIES:
            raise LexiconError(f"{path}:{n}: more than {_MAX_ENTRIES} entries")
    return lex


def save_lexicon(lexicon: Lexicon, path: str | os.PathLike) -> Path:
    """Write ``lexicon`` to ``path`` atomically (``speechstudio.atomic``; it creates the folders)."""
    path = Path(path)
    atomic_write_text(path, "# word<TAB>respelling, or word<TAB>/IPA phonemes/ (SpeechStudio lexicon)\n"
                      + "".join(line + "\n" for line in lexicon.lines()))
    _load_cached.cache_clear()
    return path


def lexicon_path(language: str) -> Path:
    """``<data dir>/lexicon/<primary subtag>.tsv`` for a voice language ("en-us" -> ``en.tsv``)."""
    lang = (language or "en").lower().replace("_", "-").split("-")[0] or "en"
    if not re.fullmatch(r"[a-z0-9]{1,8}", lang):
        raise UsageError(f"language {language!r} is not a language code")
    return data_dir() / "lexicon" / f"{lang}.tsv"


def user_lexicon(language: str) -> Lexicon | None:
    """The user's lexicon for ``language`` (``lexicon_path``), or None when there is none / it is
    empty. Re-read when the file changes (edits in the Speak page apply to the next sentence)."""
    try:
        path = lexicon_path(language)
        st = path.stat()
    except (UsageError, OSError):  # a voice language that is no language code, or no lexicon file
        return None
    lexicon = _load_cached(str(path), st.st_mtime_ns, st.st_size)
    return lexicon if lexicon.entries else None


@functools.lru_cache(maxsize=16)
def _load_cached(path: str, _mtime_ns: int, _size: int) -> Lexicon:
    """``load_lexicon`` once per version of the file (its path, modification time and size)."""
    return load_lexicon(path)


def apply_pronunciations(voice, sentence: str) -> tuple[str, list[int] | None]:
    """Apply ``voice.language``'s lexicon and inline phoneme marks: ``(text, None)`` when the voice's own front end
    goes on (respellings substituted; marked words as written for letter-reading voices, warned), or ``(sentence,
    ids)`` when IPA became ids here. IPA the voice cannot say is refused, not dropped: ``UsageError`` naming the
    SSML ``<phoneme ph>`` value, ``LexiconError`` naming the lexicon file and line; both name the symbols. Raises
    ``LexiconError`` for a broken lexicon file."""
    symbols = voice_phonemes(voice) if getattr(voice, "reads_ipa", False) else None  # letter voices: warned below
    if symbols is not None and PHONEME_OPEN in sentence:
        for word, ipa in split_marks(sentence):  # marks made before the lexicon: SSML <phoneme>
            lacking = unsayable(ipa, symbols) if ipa is not None else ""
            if lacking:
                raise UsageError(f"SSML <phoneme ph=\"{ipa}\"> for {word!r}: voice {voice.name} cannot say "
                                 f"{' '.join(lacking)} (not among its phonemes; use the symbols espeak-ng writes, "
                                 f"docs/tts.md, Pronunciations)")
    lexicon = user_lexicon(getattr(voice, "language", "en") or "en")
    if lexicon is not None:
        sentence = lexicon.apply(sentence, symbols, voice.name)
    if PHONEME_OPEN not in sentence:
        return sentence, None
    segments = split_marks(sentence)
    if not getattr(voice, "reads_ipa", False):  # other families read letters
        words = [w for w, ipa in segments if ipa is not None]
        voice.warnings.append(f"voice {voice.name} reads letters, not phonemes: IPA for "
                              f"{', '.join(repr(w) for w in words[:3])} not used (give a respelling)")
        return " ".join("".join(w for w, _ in segments).split()), None
    return sentence, _ipa_ids(voice, segments)


def _ipa_ids(voice, segments: list[tuple[str, str | None]]) -> list[int]:
    english = voice.language.startswith("en")
    espeak_voice = voice.piper.espeak_voice if voice.has_phoneme_map else "en-us"
    phonemes: list[str] = []
    for text, ipa in segments:
        if ipa is None:
            if not has_speakable(text):
                text = text.strip()
                if text and phonemes and text[0] in ",.;:!?":
                    phonemes.append(text[0])
                continue
            text = normalize_english(text, voice.language) if english else text
            new = espeak_phonemes(text, espeak_voice)
        else:
            new = list(ipa)
        if phonemes and phonemes[-1] != " " and new and new[0] not in (" ", ",", ".", "!", "?"):
            phonemes.append(" ")
        phonemes.extend(new)
    if voice.has_phoneme_map:
        return voice.map_phonemes(phonemes)
    tok = plain_tokenizer(voice.tokenizer)
    text = " ".join("".join(phonemes).split())
    vocab = tok.get_vocab()
    lost = sorted({ch for ch in text if ch not in vocab and not ch.isspace()})
    if lost:
        voice.warnings.append(f"voice {voice.name} cannot say phonemes {''.join(lost)!r}; skipped")
    return list(tok(text, return_tensors=None)["input_ids"])
