"""Our ``.json`` transcript: the one writer (:func:`transcript_dict`, :func:`render_json`) and the
segment read back from it. Times in seconds rounded to ms, probabilities to 4 decimals; unknown keys kept
in ``extra`` and written back."""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from speechstudio import __version__
from speechstudio.asr.types import Segment as AsrSegment, TranscriptInfo
from speechstudio.errors import SpeechStudioError
from speechstudio.transcript.words import Word, ms

SEGMENT_KEYS = ("start_s", "end_s", "text", "avg_logprob", "no_speech_prob", "words", "speaker", "language")
WORD_KEYS = ("start_s", "end_s", "text", "probability", "speaker")


class TranscriptFileError(SpeechStudioError):
    """A transcript file cannot be read, is not our JSON transcript, or its edit history does not
    match its segments; the message names the file (and the segment) and the reason."""


@dataclasses.dataclass(frozen=True)
class Segment(AsrSegment):
    """:class:`speechstudio.asr.types.Segment` (seconds, ``words`` of :class:`Word`) plus ``extra``:
    the segment's JSON keys this program does not know. Exporters take it as an ``asr`` segment."""

    extra: dict = dataclasses.field(default_factory=dict)


def _num(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{what} is {v!r}, not a number")
    return float(v)


def _text_field(d: dict, key: str, where: str, what: str) -> str | None:
    """``d[key]`` when it is a string, ``None`` when absent; else ``ValueError`` naming ``where``."""
    v = d.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        raise ValueError(f"{where} {key} is {v!r}, not {what}")
    return v


def word_from_dict(d: dict, where: str) -> Word:
    if not isinstance(d, dict):
        raise ValueError(f"{where} is not an object")
    prob = d.get("probability", 1.0)
    return Word(_num(d.get("start_s"), f"{where} start_s"), _num(d.get("end_s"), f"{where} end_s"),
                str(d.get("text", "")).strip(), 1.0 if prob is None else _num(prob, f"{where} probability"),
                _text_field(d, "speaker", where, "a name"), extra={k: v for k, v in d.items() if k not in WORD_KEYS})


def segment_from_dict(d: dict, where: str) -> Segment:
    """A :class:`Segment` from its JSON object. Line breaks inside the text become spaces (one
    segment is one line in the editor). Raises ``ValueError`` naming ``where`` and the field."""
    if not isinstance(d, dict):
        raise ValueError(f"{where} is not an object")
    words = d.get("words") or []
    if not isinstance(words, list):
        raise ValueError(f"{where} words is not a list")
    text = d.get("text", "")
    if not isinstance(text, str):
        raise ValueError(f"{where} text is {text!r}, not a string")
    lp, ns = d.get("avg_logprob"), d.get("no_speech_prob")
    return Segment(_num(d.get("start_s"), f"{where} start_s"), _num(d.get("end_s"), f"{where} end_s"),
                   " ".join(text.splitlines()) if ("\n" in text or "\r" in text) else text,
                   tuple(word_from_dict(w, f"{where} word {k + 1}") for k, w in enumerate(words)),
                   None if lp is None else _num(lp, f"{where} avg_logprob"),
                   None if ns is None else _num(ns, f"{where} no_speech_prob"),
                   _text_field(d, "speaker", where, "a name"), _text_field(d, "language", where, "a language code"),
                   extra={k: v for k, v in d.items() if k not in SEGMENT_KEYS})


def word_to_dict(w, speaker: str | None = None) -> dict:
    """The JSON object of a word: times rounded to ms, probability to 4 decimals, its speaker (else
    ``speaker``, the segment's) when known, then ``extra``."""
    d = {"start_s": ms(w.start_s), "end_s": ms(w.end_s), "text": w.text.strip(),
         "probability": round(float(w.probability), 4)}
    who = getattr(w, "speaker", None) or speaker
    if who is not None:
        d["speaker"] = who
    if getattr(w, "overlap", False):
        d["overlap"] = True
    d.update(getattr(w, "extra", {}) or {})
    return d


def segment_to_dict(s, strip: bool = False) -> dict:
    """The JSON object of a segment, the one rule for both writers: times, text, ``avg_logprob``,
    ``no_speech_prob``, ``speaker`` / ``language`` when known, ``words`` (each with the segment's speaker
    when it has none), then ``extra``. ``strip``: the text stripped, as a run writes it; otherwise as the
    editor holds it."""
    d = {"start_s": ms(s.start_s), "end_s": ms(s.end_s), "text": s.text.strip() if strip else s.text,
         "avg_logprob": s.avg_logprob, "no_speech_prob": s.no_speech_prob}
    if getattr(s, "speaker", None) is not None:
        d["speaker"] = s.speaker
    if getattr(s, "language", None) is not None:
        d["language"] = s.language
    d["words"] = [word_to_dict(w, getattr(s, "speaker", None)) for w in s.words]
    d.update(getattr(s, "extra", {}) or {})
    return d


def as_segment(s) -> Segment:
    """Any ``asr`` segment (or ours) as a :class:`Segment` with :class:`Word` s."""
    return s if isinstance(s, Segment) else segment_from_dict(segment_to_dict(s), "segment")


def speaker_count_text(found: int, could_be: int | None) -> str:
    """``"2 speakers"``, or ``"2 or 3 speakers: check"`` when the count is unsure (``"1 to 3 speakers: check"``
    when it could be any of three or more)."""
    if could_be is None:
        return f"{found} speaker{'s' if found != 1 else ''}"
    lo, hi = sorted((found, could_be))
    return f"{lo} {'or' if hi - lo == 1 else 'to'} {hi} speakers: check"


def transcript_dict(segments: Sequence[Segment], info: TranscriptInfo) -> dict:
    """The JSON document as a dict: run metadata (model, device, language and its probability, task,
    duration), ``text`` and ``segments`` with ``words``; ``null`` where unknown; per-segment ``language``
    and ``languages: {code: seconds}`` when detected per stretch (``info`` then as :func:`whole_file_language`
    makes it, as the batch does)."""
    return {
        "speechstudio_version": __version__,
        "model_id": info.model_id,
        "engine": info.engine,
        "device": info.device,
        "precision": info.precision,
        "language": info.language,
        "language_probability": info.language_probability,
        "language_detected_by": info.detector,
        "task": info.task,
        "audio_duration_s": ms(info.duration_s),
        **({"audio": info.audio} if getattr(info, "audio", None) else {}),
        "text": " ".join(t for t in (" ".join(s.text.split()) for s in segments) if t),
        "segments": [segment_to_dict(s, strip=True) for s in segments],
        **_speaker_tables(info),
        **_language_table(segments),
    }


def spoken_languages(segments) -> dict[str, float]:
    """{ISO code: seconds of ``segments`` in it}, in the order the languages first come (segments without
    a ``language`` left out): what ``languages`` in the JSON and :func:`whole_file_language` measure."""
    spoken: dict[str, float] = {}
    for s in segments:
        if getattr(s, "language", None):
            spoken[s.language] = spoken.get(s.language, 0.0) + max(0.0, s.end_s - s.start_s)
    return spoken


def whole_file_language(info: TranscriptInfo, segments) -> TranscriptInfo:
    """``info`` for ``segments`` in more than one language (each stretch decoded in its own:
    :mod:`speechstudio.asr.stretches`): ``language`` the one with the most speech (seconds of segments; the
    first to come on a tie) and no ``language_probability`` (each stretch was detected on its own, none heard
    the whole file); ``info`` unchanged for one language."""
    spoken = spoken_languages(segments)
    if len(spoken) < 2:
        return info
    return dataclasses.replace(info, language=max(spoken, key=spoken.get), language_probability=None)


def _language_table(segments) -> dict:
    """``languages``: {ISO code: seconds of segments} when the segments are in more than one
    language (each stretch decoded in its own: :mod:`speechstudio.asr.stretches`); nothing otherwise."""
    spoken = spoken_languages(segments)
    return {"languages": {k: ms(v) for k, v in spoken.items()}} if len(spoken) > 1 else {}


def _speaker_tables(info: TranscriptInfo) -> dict:
    """``speaker_count``, ``speakers`` (name, talk time, known, similarity, sureness) and ``speaker_turns``
    when the transcript was diarized; nothing otherwise."""
    speakers = getattr(info, "speakers", ()) or ()
    if not speakers:
        return {}
    could_be = getattr(info, "speakers_could_be", None)
    return {
        "speaker_count": {"found": len(speakers), "sure": could_be is None, "could_be": could_be,
                          "text": speaker_count_text(len(speakers), could_be)},
        "speakers": [{"name": s.name, "talk_time_s": ms(s.talk_s), "known": bool(s.known),
                      "similarity": s.similarity, "sureness": s.sureness} for s in speakers],
        "speaker_turns": [{"start_s": ms(t.start_s), "end_s": ms(t.end_s), "speaker": t.speaker}
                          for t in (getattr(info, "speaker_turns", ()) or ())],
    }


def json_text(doc: dict) -> str:
    """A transcript document (``transcript_dict``'s shape, extra keys kept) as our file's text."""
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def render_json(segments: Sequence[Segment], info: TranscriptInfo) -> str:
    """JSON document (UTF-8 text, 2-space indent, trailing newline)."""
    return json_text(transcript_dict(segments, info))
