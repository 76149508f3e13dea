"""Per-channel transcription (one person per channel: interview recorders, calls): :func:`plan` picks the
channels to transcribe on their own, :func:`merge` labels each channel's segments as its speaker, without the
words it only heard from another (crosstalk bleed). The rules: docs/transcribe.md, Batch."""
from __future__ import annotations

import dataclasses

import numpy as np

from speechstudio.audio.levels import LevelMeter
from speechstudio.diarize.assign import Turn
from speechstudio.diarize.family import SpeakerInfo
from speechstudio.transcript.display import join_tokens

PROBE_S = 120.0
SPLIT_DB = 10.0         #: one channel this much louder on a speech frame: someone close to its microphone
SPLIT_SHARE = 0.6       #: ... on at least this share of speech frames
LEAD_SHARE = 0.1        #: and each of 2 channels leads on at least this share (else it is a mono source); of n: 0.2 / n
BLEED_DB = 10.0         #: a word whose span is this much louder on another channel was heard, not said
SAME_DB = 0.5           #: channels never further apart than this are one sound (split, each line came twice)
MODES = ("mix", "split", "auto")


def channel_names(n: int) -> list[str]:
    """Display labels: ``["Left", "Right"]`` for stereo, else ``["Channel 1", ...]``."""
    return ["Left", "Right"] if n == 2 else [f"Channel {k + 1}" for k in range(n)]


def plan(reader, mode: str) -> tuple[list[int] | None, list[str]]:
    """``(channels to transcribe one by one, or None for the mix; notes for the user)`` for an
    :class:`~speechstudio.audio.decode.AudioReader` and ``mode`` (``mix``/``split``/``auto``)."""
    n = int(reader.info.channels or 1)
    if mode == "mix":
        return None, []
    if n < 2:
        return None, (["--channels split: the file has one channel; transcribed as one stream"]
                      if mode == "split" else [])
    # auto: a centre channel (a film's: dialogue, music, effects) is never split (levels None)
    levels = reader.channel_levels(PROBE_S) if mode == "split" or "FC" not in (reader.info.channel_names or ()) \
        else None
    if mode == "split":
        apart = np.abs(levels - levels[0]) if levels is not None and levels.shape[1] else None
        if apart is not None and float(np.nan_to_num(apart, nan=0.0).max()) < SAME_DB:    # nan: silent in both
            return None, [f"--channels split: the {n} channels hold the same sound (a mono recording in "
                          f"{'stereo' if n == 2 else f'{n} channels'}); transcribed as one stream"]
        return list(range(n)), []
    if levels is None or levels.shape[0] < 2 or levels.shape[1] == 0:
        return None, []
    top = levels.max(axis=0)
    speech = top > max(-50.0, float(top.max()) - 35.0)
    if speech.sum() < 20:                       # under 2 s of speech: nothing to decide on
        return None, []
    lv = levels[:, speech]
    order = np.sort(lv, axis=0)
    apart = (order[-1] - order[-2]) >= SPLIT_DB
    leader = np.argmax(lv, axis=0)
    leads = np.bincount(leader[apart], minlength=levels.shape[0]) / max(1, int(apart.sum()))
    if apart.mean() >= SPLIT_SHARE and leads.min() >= LEAD_SHARE * 2 / n:   # 8 people: one may talk 3 % of the time
        return list(range(n)), [f"the {n} channels hold different voices: each was transcribed on its own and "
                                "labelled (--channels mix to transcribe the mix)"]
    return None, []


def _without_bleed(seg, own: LevelMeter, others: list[LevelMeter]) -> tuple[object | None, int]:
    """``(seg without the words heard from another channel, or None; words dropped)``."""
    def heard(a: float, b: float) -> bool:
        mine = own.level(a, b)
        return any(o.level(a, b) - mine >= BLEED_DB for o in others)

    if not seg.words:
        return (None, 0) if heard(seg.start_s, seg.end_s) else (seg, 0)
    kept = [w for w in seg.words if not heard(w.start_s, w.end_s)]
    dropped = len(seg.words) - len(kept)
    if not kept:
        return None, dropped
    if not dropped:
        return seg, 0
    text = join_tokens([w.text for w in kept])
    return dataclasses.replace(seg, text=text, words=tuple(kept), start_s=kept[0].start_s, end_s=kept[-1].end_s), dropped


def merge(passes, n_channels: int):
    """``(segments, info, notes)`` from ``passes`` (a :class:`~speechstudio.batch.run.ChannelPass` per
    channel). Each channel is one speaker: a known voice's name when its diarization named it and no other
    channel matched that voice closer (channels are different people: the other keeps its channel's label)."""
    labels = channel_names(n_channels)
    out, infos, dropped = [], [], 0
    meters = {p.channel: p.reader.levels for p in passes}
    named = {p.channel: p.diarization.speakers[0] for p in passes
             if p.diarization is not None and p.diarization.speakers and p.diarization.speakers[0].known}
    closest = {who.name: ch for ch, who in sorted(named.items(), key=lambda kv: kv[1].similarity or 0.0)}
    for p in passes:
        ch, meter = p.channel, p.reader.levels
        known = named[ch] if ch in named and closest[named[ch].name] == ch else None
        name = known.name if known is not None else labels[ch]
        others = [m for c, m in meters.items() if c != ch]
        talk = 0.0
        for s in p.segments:
            kept, k = _without_bleed(s, meter, others)
            dropped += k
            if kept is None:
                continue
            kept = dataclasses.replace(kept, speaker=name,
                                       words=tuple(dataclasses.replace(w, speaker=name) for w in kept.words))
            talk += max(0.0, kept.end_s - kept.start_s)
            out.append(kept)
        if talk:                        # a channel that said nothing is no speaker of the transcript
            infos.append(dataclasses.replace(known, talk_s=round(talk, 3)) if known is not None
                         else SpeakerInfo(name, round(talk, 3)))
    out.sort(key=lambda s: (s.start_s, s.end_s))
    turns = tuple(Turn(s.start_s, s.end_s, s.speaker) for s in out)
    first = {s.speaker: s.start_s for s in reversed(out)}     # each speaker's first start
    infos.sort(key=lambda i: first.get(i.name, float("inf")))
    info = dataclasses.replace(passes[0].info, speakers=tuple(infos), speaker_turns=turns)
    notes = [f"{dropped} word{'s' if dropped != 1 else ''} heard on one channel from another (crosstalk) "
             "left out; they are in the channel that said them"] if dropped else []
    return out, info, notes
