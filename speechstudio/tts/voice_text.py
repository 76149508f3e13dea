"""Text -> ids for a VITS voice: the English front end, Piper phonemes, transformers tokenizers.

``VoiceText`` is the text half of ``tts.vits.VitsVoice`` (which adds loading and synthesis): a
sentence goes through the user's lexicon / SSML ``<phoneme>`` (``lexicon``), the English front end
(``text.english_front_end``: numbers, abbreviations, scripts an English voice cannot read), then
either espeak-ng phonemes mapped by a Piper ``phoneme_id_map`` (``phonemize``) or the voice's
``VitsTokenizer`` (MMS characters, uroman romanisation, vits-ljs / vctk espeak-ng IPA).
"""
from __future__ import annotations

import threading
from collections import Counter

from speechstudio.errors import SpeechStudioError, UsageError
from speechstudio.tts.lexicon import apply_pronunciations
from speechstudio.tts.phonemize import codepoint_phonemes, espeak_phonemes, phonemes_to_ids, plain_tokenizer
from speechstudio.tts.text import EmptyTextError, LeftOutTextError, english_front_end, has_speakable

__all__ = ["VoiceText", "UnsayableTextError"]


class UnsayableTextError(SpeechStudioError):
    """Nothing of the text maps to symbols the voice knows."""

class VoiceText:
    """Text -> ids for a voice with ``name``, ``language``, ``piper`` (a ``PiperVoiceConfig`` or
    None), ``tokenizer`` and ``warnings`` (a list the notes about unsayable text go to)."""

    def text_to_ids(self, sentence: str) -> list[int]:
        """Token / phoneme ids (ints) for one sentence, after English normalisation.

        Characters or phonemes the voice does not know are skipped and reported in
        ``self.warnings``. Raises ``EmptyTextError`` (nothing speakable) or
        ``UnsayableTextError`` (nothing maps to the voice's symbols).
        """
        sentence, ids = apply_pronunciations(self, sentence)  # user lexicon, SSML <phoneme> (lexicon.py)
        if ids is not None:
            return ids
        if not has_speakable(sentence):
            raise EmptyTextError(f"text has nothing a voice can say: {sentence[:40]!r}")
        text = sentence
        if self.language.startswith("en"):
            text = self._english_text(sentence)
        if self.has_phoneme_map:
            missing: Counter = Counter()
            if self.piper.phoneme_type == "text":
                phonemes = codepoint_phonemes(text)
            else:
                phonemes = espeak_phonemes(text, self.piper.espeak_voice)
            ids = phonemes_to_ids(phonemes, self.piper.phoneme_id_map, missing)
            if missing:
                self.warnings.append(f"voice {self.name} cannot say phonemes {''.join(sorted(missing))!r}; skipped")
            if len(ids) <= 3:
                raise UnsayableTextError(f"voice {self.name} cannot say any of {sentence[:40]!r}")
            return ids
        return self._tokenize_transformers(text, sentence)

    def _english_text(self, sentence: str) -> str:
        """The English front end (``text.english_front_end``) for one sentence, its notes as warnings.

        The same text and the same warnings for synthesis and for the fine-tuning dataset check
        (``finetune.voice_run.text_checker`` flags a clip on "cannot say"). A warning names the
        script or the symbols, not the sentence, so a long text warns once per script. Raises
        ``LeftOutTextError`` when nothing is left to say.
        """
        said = english_front_end(sentence, self.language)
        for script in said.transliterated:
            self.warnings.append(f"voice {self.name} speaks English and cannot say {script} script: "
                                 "read as Latin letters (use a voice for that language)")
        for script in said.skipped_scripts:
            self.warnings.append(f"voice {self.name} speaks English and cannot say {script} script: "
                                 "left out (use a voice for that language)")
        if said.skipped_symbols:
            self.warnings.append(f"voice {self.name} cannot say symbols {said.skipped_symbols!r}: left out")
        if not has_speakable(said.text):
            raise LeftOutTextError(f"voice {self.name}: nothing left to say in {sentence[:40]!r}")
        return said.text

    def _tokenize_transformers(self, text: str, original: str) -> list[int]:
        """Token ids from the voice's ``VitsTokenizer``; thread-safe (sentence workers share it).

        The shared tokenizer is never changed: a phonemizing tokenizer without the ``phonemizer``
        package gets espeak-ng phonemes from piper-phonemize and is called through a non-phonemizing
        copy made once (``phonemize.plain_tokenizer``), instead of switching its ``phonemize`` flag per call.
        """
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
                text = _uroman(self.name).romanize_string(text)
            vocab = tok.get_vocab()
            lowered = tok.normalize_text(text) if getattr(tok, "normalize", True) else text
            lost = sorted({ch for ch in lowered if ch not in vocab and ch.isalnum()})
            if lost:
                self.warnings.append(f"voice {self.name} cannot say characters {''.join(lost)!r}; skipped")
        ids = tok(text, return_tensors=None)["input_ids"]
        if not any(i != 0 for i in ids) or len(ids) < 2:
            raise UnsayableTextError(f"voice {self.name} cannot say any of {original[:40]!r}")
        return list(ids)


_UROMAN = None
_UROMAN_LOCK = threading.Lock()  # the one-time build shared by sentence workers


def _uroman(voice_name: str):
    """The shared ``uroman.Uroman`` instance (building one loads its tables: several seconds)."""
    global _UROMAN
    if _UROMAN is None:
        try:
            import uroman
        except ImportError as exc:
            raise UsageError(f"voice {voice_name} needs the uroman romaniser for this script: pip install uroman") from exc
        with _UROMAN_LOCK:
            if _UROMAN is None:
                _UROMAN = uroman.Uroman()
    return _UROMAN
