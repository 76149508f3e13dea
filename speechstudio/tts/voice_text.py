"""The base of every loaded voice (``VoiceText``; ``FamilyVoice`` for the non-VITS families): text -> ids (lexicon /
SSML ``<phoneme>``, the English front end, then espeak-ng phonemes through a Piper ``phoneme_id_map``, the voice's
``VitsTokenizer``: MMS characters, uroman, espeak-ng IPA, or a family's ``_tokenize``) and ``synthesize``."""
from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from speechstudio.errors import SpeechStudioError
from speechstudio.tts.family import SynthesisSettings, UnknownSpeakerError, check_options
from speechstudio.tts.lexicon import apply_pronunciations
from speechstudio.tts.phonemize import (codepoint_phonemes, espeak_phonemes, phonemes_to_ids, plain_tokenizer,
                                        split_ids)
from speechstudio.tts.pitch import shift_pitch
from speechstudio.tts.frontend.text import EmptyTextError, LeftOutTextError, english_front_end, has_speakable


class UnsayableTextError(SpeechStudioError):
    """Nothing of the text maps to symbols the voice knows."""


@dataclass
class VoiceText:
    """Every loaded voice (:class:`~speechstudio.tts.family.Voice`): its fields, text -> ids, speaker ids and
    ``synthesize``; a family defines ``family`` (its registry name: ``family.of(voice)``), ``_tokenize`` (text -> ids)
    and ``_run_ids`` (ids -> audio). ``kind``: the file format (``transformers`` | ``piper``), ``piper`` a
    ``PiperVoiceConfig`` or None, ``speakers`` name -> id, ``defaults`` the controls' defaults, ``warnings`` what it
    could not say (the caller clears them), ``clone_of`` the base voice of a clone, ``pitch_semitones`` applied unless
    ``SynthesisSettings.pitch`` says otherwise (a clone's offset)."""

    name: str
    model: object = field(repr=False, compare=False)
    sample_rate: int
    kind: str = "transformers"
    language: str = "en"
    tokenizer: object = None
    speakers: dict = field(default_factory=dict)
    num_speakers: int = 1
    device: str = "cpu"
    dtype: str = "fp32"
    defaults: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    clone_of: str | None = None
    piper: object = None
    pitch_semitones: float = 0.0

    @property
    def has_phoneme_map(self) -> bool:
        """True when text reaches ids as phonemes through a Piper ``phoneme_id_map`` (``piper``: Piper
        voices and clones saved as Piper); False when the transformers ``tokenizer`` makes the ids."""
        return self.piper is not None

    @property
    def reads_ipa(self) -> bool:
        """True when the voice reads espeak-ng phonemes (IPA): a Piper voice of ``phoneme_type``
        espeak, or a transformers VITS tokenizer that phonemizes (``tokenizer.phonemize``)."""
        if self.has_phoneme_map:
            return getattr(self.piper, "phoneme_type", "espeak") != "text"
        return bool(getattr(self.tokenizer, "phonemize", False))

    def synthesize(self, sentence: str, settings: SynthesisSettings | None = None) -> np.ndarray:
        """One sentence -> float32 ``(n_samples,)`` at ``sample_rate`` Hz in [-1, 1]; Piper sentences over
        ``phonemize.MAX_PHONEMES`` in pieces; nothing sayable: ``(0,)`` and warnings."""
        settings = settings or SynthesisSettings()
        try:
            ids = self.text_to_ids(sentence)
        except LeftOutTextError:
            return np.zeros(0, dtype=np.float32)  # all another script or emoji: warned, nothing to say
        pieces = split_ids(ids, self.piper.phoneme_id_map) if self.has_phoneme_map else [ids]
        return np.concatenate([self.synthesize_ids(piece, settings) for piece in pieces])

    def synthesize_ids(self, ids: list[int], settings: SynthesisSettings = SynthesisSettings()) -> np.ndarray:
        """One id sequence -> float32 ``(n_samples,)``, pitch-shifted by ``settings.pitch`` or ``pitch_semitones``.
        Raises ``UsageError`` for a control out of range; a control the family lacks is a warning."""
        self.warnings.extend(check_options(self, settings))
        wav = self._run_ids(ids, settings)
        shift = self.pitch_semitones if settings.pitch is None else float(settings.pitch)
        return shift_pitch(wav, self.sample_rate, shift) if shift else wav

    def speaker_id(self, speaker: int | str | None) -> int | None:
        """Speaker id (int, digit string) or name -> int id; ``None`` for default. Raises ``UnknownSpeakerError``."""
        if speaker is None or speaker == "":
            return 0 if self.num_speakers > 1 else None
        named = isinstance(speaker, str) and not speaker.strip().lstrip("-").isdigit()
        if named and speaker in self.speakers:
            return int(self.speakers[speaker])
        if not named and 0 <= int(speaker) < self.num_speakers:
            return int(speaker) if self.num_speakers > 1 else None
        valid = ("it has a single speaker: leave the speaker out" if self.num_speakers <= 1 else
                 f"names: {', '.join(list(self.speakers)[:8])}" if named and self.speakers else
                 f"valid ids: 0..{self.num_speakers - 1}")
        shown = repr(speaker) if named else int(speaker)
        raise UnknownSpeakerError(f"voice {self.name} has no speaker {shown} ({valid})")

    def text_to_ids(self, sentence: str) -> list[int]:
        """Token / phoneme ids for one sentence; unknown symbols are skipped and reported in
        ``self.warnings``. Raises ``EmptyTextError`` or ``UnsayableTextError`` (nothing maps)."""
        sentence, ids = apply_pronunciations(self, sentence)  # user lexicon, SSML <phoneme> (lexicon.py)
        if ids is not None:
            return ids
        if not has_speakable(sentence):
            raise EmptyTextError(f"text has nothing a voice can say: {sentence[:40]!r}")
        text = sentence
        if self.language.startswith("en"):
            text = self._english_text(sentence)
        if self.has_phoneme_map:
            ids = self.map_phonemes(codepoint_phonemes(text) if self.piper.phoneme_type == "text"
                                    else espeak_phonemes(text, self.piper.espeak_voice))
            sayable = len(ids) > 3
        else:
            ids = self._tokenize(text)
            sayable = len(ids) >= 2 and any(ids)
        if not sayable:
            raise UnsayableTextError(f"voice {self.name} cannot say any of {sentence[:40]!r}")
        return ids

    def map_phonemes(self, phonemes: list[str]) -> list[int]:
        """Ids of ``phonemes`` through the Piper ``phoneme_id_map``; unknown phonemes skipped, warned."""
        missing: Counter = Counter()
        ids = phonemes_to_ids(phonemes, self.piper.phoneme_id_map, missing)
        if missing:
            self.warnings.append(f"voice {self.name} cannot say phonemes {''.join(sorted(missing))!r}; skipped")
        return ids

    def _english_text(self, sentence: str) -> str:
        """``text.english_front_end`` for one sentence, its notes as warnings (per script or symbol, not
        per sentence); the same for synthesis and the dataset check. Raises ``LeftOutTextError``."""
        said = english_front_end(sentence, self.language)
        for scripts, how in ((said.transliterated, "read as Latin letters"), (said.skipped_scripts, "left out")):
            self.warnings.extend(f"voice {self.name} speaks English and cannot say {script} script: {how} (use a "
                                 "voice for that language)" for script in scripts)
        if said.skipped_symbols:
            self.warnings.append(f"voice {self.name} cannot say symbols {said.skipped_symbols!r}: left out")
        if not has_speakable(said.text):
            raise LeftOutTextError(f"voice {self.name}: nothing left to say in {sentence[:40]!r}")
        return said.text

    def _tokenize(self, text: str) -> list[int]:
        """Token ids from the shared ``VitsTokenizer``, thread-safe: it is never changed (a phonemizing
        one without ``phonemizer`` gets piper-phonemize phonemes through ``phonemize.plain_tokenizer``)."""
        tok = self.tokenizer
        if getattr(tok, "phonemize", False):  # vits-ljs / vctk: espeak-ng IPA, as VitsTokenizer does
            from transformers.utils import is_phonemizer_available

            if not is_phonemizer_available():
                text = " ".join("".join(espeak_phonemes(text, "en-us")).split())
                tok = plain_tokenizer(tok)
        else:
            from transformers.models.vits.tokenization_vits import has_non_roman_characters

            if getattr(tok, "is_uroman", False) and has_non_roman_characters(text):
                # Romanise here with one cached Uroman: VitsTokenizer builds a new one per call (~6 s).
                text = _uroman().romanize_string(text)
            vocab = tok.get_vocab()
            # what normalize_text keeps (a vocabulary character, else lowercased), without its vocabulary scan per char
            lowered = (ch for c in text for ch in (c if c in vocab else c.lower())) if getattr(tok, "normalize", True) \
                else text
            lost = sorted({ch for ch in lowered if ch not in vocab and ch.isalnum()})
            if lost:
                self.warnings.append(f"voice {self.name} cannot say characters {''.join(lost)!r}; skipped")
        return list(tok(text, return_tensors=None)["input_ids"])


@dataclass
class FamilyVoice(VoiceText):
    """A loaded non-VITS voice: subclasses implement ``_tokenize`` (text -> token ids) and ``_run`` (ids -> a
    waveform tensor); calls on one model hold a lock its shallow copies share (``stream_speech`` copies per worker)."""

    family: str = ""
    controls: tuple = ()
    lock: object = field(default_factory=threading.Lock, repr=False)

    def _run_ids(self, ids: list[int], settings) -> np.ndarray:
        import torch

        with self.lock, torch.inference_mode():
            wav = self._run(ids, settings)
        return np.ascontiguousarray(wav.float().cpu().numpy().reshape(-1), dtype=np.float32)


class _SharedLoad:
    """Calls ``load()`` once (thread-safe) and returns its result to every caller after."""

    def __init__(self, load):
        self.load, self.value, self.lock = load, None, threading.Lock()

    def __call__(self):
        with self.lock:
            if self.value is None:
                self.value = self.load()
            return self.value


#: The shared ``uroman.Uroman`` instance (building one loads its tables: several seconds).
_uroman = _SharedLoad(lambda: __import__("uroman").Uroman())
