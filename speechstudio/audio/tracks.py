"""Audio tracks of a container (PyAV): what each is, which one to read (``--audio-track N`` or language,
else default, else loudest; one with speech), and how late a track starts."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from speechstudio.errors import AudioDecodeError

#: ISO 639-1 -> ISO 639-2 codes (bibliographic and terminology) where they do not share a prefix
#: with the 639-1 code, so --audio-track de finds a track tagged "ger"
ISO639_2 = {"de": ("deu", "ger"), "fr": ("fra", "fre"), "zh": ("zho", "chi"), "nl": ("nld", "dut"),
            "cs": ("ces", "cze"), "el": ("ell", "gre"), "fa": ("fas", "per"), "hy": ("hye", "arm"),
            "ka": ("kat", "geo"), "is": ("isl", "ice"), "mk": ("mkd", "mac"), "ms": ("msa", "may"),
            "ro": ("ron", "rum"), "sk": ("slk", "slo"), "sq": ("sqi", "alb"), "cy": ("cym", "wel"),
            "eu": ("eus", "baq"), "my": ("mya", "bur"), "bo": ("bod", "tib"), "ja": ("jpn",), "ko": ("kor",),
            "es": ("spa",), "en": ("eng",), "it": ("ita",), "pt": ("por",), "ru": ("rus",), "sv": ("swe",)}


def track_info(number: int, stream) -> dict:
    """``{"number", "language", "title", "default", "channels", "codec"}`` of audio ``stream``;
    ``number`` is 1-based, ``language`` ``None`` when unset or "und"."""
    meta = dict(stream.metadata or {})
    import av.stream

    try:
        default = bool(stream.disposition & av.stream.Disposition.default)
    except (AttributeError, TypeError):
        default = False
    cc = stream.codec_context
    lang = stream.language or meta.get("language")
    return {"number": number, "language": None if lang in (None, "und") else lang, "title": meta.get("title"),
            "default": default, "channels": int(cc.channels or 0), "codec": cc.name}


def track_label(t: dict) -> str:
    """``"eng, 'Commentary'"``: a track's language (or "language not set") and title."""
    parts = [t["language"] or "language not set"]
    if t.get("title"):
        parts.append(repr(t["title"]))
    return ", ".join(parts)


def choose_track(path: Path, streams: Sequence, tracks: list[dict], want: int | str | None,
                 streaming: bool, loudest: Callable[[Sequence], object]) -> tuple[object, str]:
    """``(stream, why)``: a file's only track; else the asked one (``want``: a number or a language code), else the
    one marked as the default, else (several or none marked) the first for a ``streaming`` input (read once) or
    ``loudest(streams)``. Raises AudioDecodeError when a file with several tracks does not have the one asked for."""
    if len(streams) == 1:        # --audio-track is for files with several; others have one to read
        return streams[0], "the only one"
    if want is not None and str(want).strip():
        w = str(want).strip().lower()
        if w.isdigit():
            k = int(w)
            if 1 <= k <= len(streams):
                return streams[k - 1], "asked for"
        else:
            one = next((k for k, two in ISO639_2.items() if w == k or w in two), None)   # "ger", "deu" -> "de"
            codes = {w} | ({one, *ISO639_2[one]} if one else set())
            hits = [st for st, t in zip(streams, tracks) if (t["language"] or "").lower() in codes
                    or (len(w) == 2 and (t["language"] or "").lower().startswith(w))]
            if hits:
                return hits[0], "asked for"
        have = "; ".join(f"{t['number']}: {track_label(t)}" for t in tracks)
        raise AudioDecodeError(f"{path}: no audio track {want!r} (the file has {len(tracks)}: {have})")
    defaults = [st for st, t in zip(streams, tracks) if t["default"]]
    if len(defaults) == 1:
        return defaults[0], "marked as the default"
    if streaming:        # a pipe cannot be read twice to compare streams
        return streams[0], "the first"
    return loudest(streams), "the loudest"


def prefer_speech(streams: Sequence, tracks: list[dict], chosen, why: str,
                  speech_s: Callable[[object], float]) -> tuple[object, str]:
    """``(stream, why)``: ``chosen``, unless it has no speech and another track has (then the first such,
    ``why`` naming the silent one); for a choice the user did not make."""
    if len(streams) < 2 or speech_s(chosen) > 0:
        return chosen, why
    for st, t in zip(streams, tracks):
        if st is not chosen and speech_s(st) > 0:
            k = streams.index(chosen) + 1
            return st, f"track {k}, {why}, has no speech"
    return chosen, why


def first_start(container) -> float | None:
    """The earliest start time (s) of the container's audio and video streams, ``None`` if unknown."""
    starts = [float(s.start_time * s.time_base) for s in container.streams
              if s.type in ("audio", "video") and s.start_time is not None and s.time_base is not None]
    return min(starts) if starts else None


def start_offset(container, stream) -> float:
    """Seconds from the file's first audio/video stream start to ``stream``'s start (>= 0)."""
    first = first_start(container)
    if first is None or stream.start_time is None or stream.time_base is None:
        return 0.0
    return max(0.0, float(stream.start_time * stream.time_base) - first)
