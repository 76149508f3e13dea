"""What the wizard and ``speechstudio finetune dataset`` show after a check: minutes usable, a
clip-length histogram, counts per flag, the refused inputs and warnings."""
from __future__ import annotations

from dataclasses import dataclass

from speechstudio.finetune.manifest import FLAGS, Manifest, Problem

#: Clip-length histogram bin edges in seconds (the last bin is open-ended).
HISTOGRAM_EDGES = (0.0, 0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0, 15.0, 20.0, float("inf"))
#: Below this many minutes of usable audio a voice clone comes out weak; 15-30 min is better.
#: (Numbers from the fine-tuning feature request; a rule of thumb for fine-tuning a pretrained
#: VITS voice, not a measured limit.)
MIN_USABLE_MINUTES = 5.0
WEAK_CLONE = "under 5 minutes of usable audio: expect a weak clone; 15–30 minutes is better"
#: What the benchmark measured with more (bench/clone_real.py; the figures: docs/finetune_voice.md).
EXPECTED_CLONE = ("with 12 minutes of one speaker our benchmark clone reached a speaker similarity of 0.54 "
                  "at the speaker's pitch (the speaker's own recordings 0.95, the base voice 0.59); with less, "
                  "expect lower")


@dataclass(frozen=True)
class DatasetReport:
    """``usable_minutes``: minutes of usable clips (``Manifest.usable``); ``total_minutes``: of
    all clips not dropped; ``histogram``: ``(low_s, high_s, count)`` per bin of
    ``HISTOGRAM_EDGES`` over clips not dropped; ``flag_counts``: flag -> clips (every key of
    ``FLAGS``, zeros included); ``problems``: inputs that did not become clips; ``too_long``: ids
    of clips to split; ``mismatches``: ``(id, cer, text, asr_text)`` of asr_mismatch clips;
    ``warnings``: lines for the user; ``too_short``: ids of clips left out as too short;
    ``unsayable``: ``(id, source, reason)`` of clips left out because the voice cannot say them;
    ``other_speaker``: ``(id, source, similarity to the other clips)`` of clips left out because
    they sound like another speaker (``build_dataset(speaker_check=True)``); ``keep_mismatched``:
    the mismatches are trained on (else left out)."""

    sample_rate: int
    clips: int
    usable_clips: int
    usable_minutes: float
    total_minutes: float
    histogram: tuple[tuple[float, float, int], ...]
    flag_counts: dict
    problems: tuple[Problem, ...]
    too_long: tuple[str, ...]
    mismatches: tuple[tuple[str, float | None, str, str], ...]
    warnings: tuple[str, ...]
    too_short: tuple[str, ...] = ()
    unsayable: tuple[tuple[str, str, str], ...] = ()
    other_speaker: tuple[tuple[str, str, float | None], ...] = ()
    keep_mismatched: bool = False


def report(manifest: Manifest) -> DatasetReport:
    """Summarise a checked ``Manifest`` (no I/O)."""
    kept = [c for c in manifest.clips if not c.dropped]
    usable = manifest.usable()
    hist = [(lo, hi, sum(1 for c in kept if lo <= c.duration_s < hi))
            for lo, hi in zip(HISTOGRAM_EDGES[:-1], HISTOGRAM_EDGES[1:])]
    counts = {flag: sum(1 for c in kept if flag in c.flags) for flag in FLAGS}
    usable_min = manifest.total_s / 60.0
    warnings = []
    if usable_min < MIN_USABLE_MINUTES:
        warnings.append(f"{WEAK_CLONE} (have {usable_min:.1f} min); {EXPECTED_CLONE}")
    if counts["too_long"]:
        warnings.append(f"{counts['too_long']} clip(s) over the longest usable length: split them "
                        "(build again with split_long=True / --split-long: cut at sentence ends with Whisper "
                        "word times; their texts then come from the recogniser)")
    keep = bool(manifest.notes.get("keep_mismatched"))
    if counts["asr_mismatch"]:
        limit = manifest.notes.get("settings", {}).get("cer_threshold")
        warnings.append(f"{counts['asr_mismatch']} clip(s) where the recogniser heard something else"
                        + (f" (CER over {limit:g})" if limit is not None else "")
                        + (": kept for training as asked (--keep-mismatched)" if keep else
                           ": left out of training; fix their texts, re-record them, or keep them "
                           "(--keep-mismatched)"))
    if counts["other_speaker"]:
        warnings.append(f"{counts['other_speaker']} clip(s) sound like another speaker than the rest: left out of "
                        "training (listen to them; a clone learnt from two voices sounds like neither)")
    if manifest.problems:
        warnings.append(f"{len(manifest.problems)} input(s) could not be used (see problems)")
    mismatches = tuple((c.id, c.cer, c.text, c.asr_text or "") for c in kept if "asr_mismatch" in c.flags)
    return DatasetReport(
        sample_rate=manifest.sample_rate, clips=len(kept), usable_clips=len(usable), usable_minutes=usable_min,
        total_minutes=sum(c.duration_s for c in kept) / 60.0, histogram=tuple(hist), flag_counts=counts,
        problems=tuple(manifest.problems), too_long=tuple(c.id for c in kept if "too_long" in c.flags),
        mismatches=mismatches, warnings=tuple(warnings),
        too_short=tuple(c.id for c in kept if "too_short" in c.flags),
        unsayable=tuple((c.id, c.source, str(manifest.notes.get("unsayable", {}).get(c.id, "")))
                        for c in kept if "unsayable" in c.flags),
        other_speaker=tuple((c.id, c.source, manifest.notes.get("speaker_similarity", {}).get(c.id))
                            for c in kept if "other_speaker" in c.flags),
        keep_mismatched=keep)


def format_report(rep: DatasetReport, max_lines: int = 20) -> str:
    """Plain-text report for the CLI (``max_lines`` problems / mismatches listed, then a count)."""
    def listed(lines: list[str], what: str) -> list[str]:
        more = len(lines) - max_lines
        return lines[:max_lines] + ([f"  ... and {more} more{what}"] if more > 0 else [])

    def ids(label: str, idents: tuple[str, ...]) -> list[str]:
        return [label + ", ".join(idents[:max_lines]) + (" ..." if len(idents) > max_lines else "")] if idents else []

    out = [f"{rep.usable_clips} usable of {rep.clips} clips: {rep.usable_minutes:.1f} min usable "
           f"({rep.total_minutes:.1f} min in all) at {rep.sample_rate} Hz"]
    peak = max((n for _, _, n in rep.histogram), default=0) or 1
    out.append("clip lengths:")
    for lo, hi, n in rep.histogram:
        span = f">= {lo:g} s" if hi == float("inf") else f"{lo:g}-{hi:g} s"
        out.append(f"  {span:>10} {n:5d} {'#' * round(30 * n / peak)}")
    flagged = {k: v for k, v in rep.flag_counts.items() if v}
    out.append("flags: " + (", ".join(f"{k} {v}" for k, v in flagged.items()) if flagged else "none"))
    out += listed([f"  asr_mismatch {ident} (CER {score:.2f}), {'kept' if rep.keep_mismatched else 'left out'}: "
                   f"text {text!r}, heard {heard!r}" for ident, score, text, heard in rep.mismatches], " mismatches")
    out += ids("too long: ", rep.too_long) + ids("too short (left out): ", rep.too_short)
    out += listed([f"  unsayable {ident} ({source}), left out: {reason}" for ident, source, reason in rep.unsayable],
                  " unsayable")
    out += listed([f"  other speaker? {ident} ({source}), left out: similarity {sim:.2f} to the other clips"
                   if sim is not None else f"  other speaker? {ident} ({source}), left out"
                   for ident, source, sim in rep.other_speaker], " from another speaker")
    if rep.problems:
        out.append(f"problems ({len(rep.problems)}):")
        out += listed([f"  {p.source}: {p.reason}" for p in rep.problems], "")
    out += [f"warning: {w}" for w in rep.warnings]
    return "\n".join(out)
