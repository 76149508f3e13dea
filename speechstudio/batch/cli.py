"""``speechstudio transcribe``: files and folders to txt/srt/vtt/json/ass by :func:`speechstudio.batch.run.run_batch`,
a progress bar in seconds of audio and a summary. Exit: 0, 1 some inputs failed, 2 usage error, 130 interrupted."""
from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

from tqdm import tqdm

from speechstudio.asr.languages import language_name
from speechstudio.atomic import check_folder_destination
from speechstudio.audio.decode import AudioReader
from speechstudio.audio.diagnose import is_stream
from speechstudio.audio.raw import parse_raw_format
from speechstudio.batch.cluster import RayPool, parse_cluster
from speechstudio.batch.export import parse_formats
from speechstudio.batch.notices import print_model_line
from speechstudio.batch.request import TranscriptionRequest
from speechstudio.batch.resume import asked, plan_work
from speechstudio.batch.run import MISSING, BatchSummary, batch_workers, collect_inputs, plan_outputs, run_batch
from speechstudio.batch.subtitles import MIN_LINE_WIDTH, SubtitleOptions
from speechstudio.cli_args import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, positive_float, positive_int
from speechstudio.diarize.family import Diarization
from speechstudio.errors import AudioDecodeError, UsageError
from speechstudio.progress import bar_output, clock, is_terminal
from speechstudio.transcript.model import spoken_languages


#: A detected language below this probability is called unsure on its line (a 1.2 s English clip was taken for
#: French at 0.16; the realspeech files' detections: 0.70-1.00).
UNSURE = 0.5

def register(subparsers) -> None:
    """Add the ``transcribe`` subcommand to ``subparsers`` (an argparse subparsers action)."""

    t = subparsers.add_parser("transcribe", help="transcribe audio/video files or folders",
                       description="Transcribe files and folders (recursively) to txt/srt/vtt/json.",
                       epilog="examples:\n"
                              "  speechstudio transcribe interview.mp3   (interview.txt, .srt, .vtt, .json beside it)\n"
                              "  speechstudio transcribe meeting.m4a --speakers auto --format txt,srt\n"
                              "  speechstudio transcribe recordings/ --output-dir transcripts/ --language de\n"
                              "  speechstudio transcribe film.mkv --audio-track eng --format srt --max-line-width 37")
    t.add_argument("paths", nargs="+", metavar="PATH", help="audio/video files or folders")
    t.add_argument("--model", help="model name, Hugging Face id or folder (default: see `models list`)")
    t.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N (default auto)")
    t.add_argument("--precision", default="auto", choices=("auto", "fp32", "fp16", "bf16"))
    t.add_argument("--format", default="txt,srt,vtt,json", help="comma list of txt,srt,vtt,json,ass (or all)")
    t.add_argument("--max-line-width", type=int, default=42, metavar="CHARS",
                   help=f"subtitle line width in characters, {MIN_LINE_WIDTH} or more, 0 = no limit (default 42)")
    t.add_argument("--max-line-count", type=int, default=2, metavar="LINES",
                   help="lines per subtitle cue, 0 = no limit (default 2)")
    t.add_argument("--max-cue-s", type=float, default=7.0, metavar="SECONDS",
                   help="longest subtitle cue, 0 = no limit (default 7)")
    t.add_argument("--min-cue-s", type=float, default=5 / 6, metavar="SECONDS",
                   help="shortest subtitle cue: shorter ones grow into the gap or join a neighbour (default 0.833)")
    t.add_argument("--max-cps", type=float, default=20.0, metavar="CHARS",
                   help="reading speed a cue is given time for, characters per second, 0 = off (default 20)")
    t.add_argument("--highlight-words", action="store_true",
                   help="word-level karaoke timing in vtt and ass subtitles")
    t.add_argument("--output-dir", help="write outputs here, mirroring the input folders")
    t.add_argument("--recursive", action=argparse.BooleanOptionalAction, default=True,
                   help="scan folders recursively (default yes)")
    t.add_argument("--overwrite", action="store_true", help="redo inputs that already have outputs")
    t.add_argument("--language", default="auto",
                   help="auto (default: detect each file's language on its first speech, English to the English "
                        "model, other languages to multilingual Whisper) or a code/name to force (fr, German)")
    t.add_argument("--task", default="transcribe", choices=("transcribe", "translate"),
                   help="translate: speech in any language to English text (multilingual Whisper)")
    t.add_argument("--hotwords", metavar="TEXT",
                   help="names and jargon the model should prefer, e.g. 'Kubernetes, Dr. Nguyen' (Whisper)")
    t.add_argument("--initial-prompt", metavar="TEXT",
                   help="text that comes before the audio, to steer style and spelling (Whisper)")
    t.add_argument("--speakers", metavar="auto|N|MIN-MAX",
                   help="label who speaks when: auto (find the number), N speakers, or a range like 2-4 "
                        "(default: off); known voices (speechstudio speakers) are named")
    t.add_argument("--diarizer", metavar="NAME", help="speaker labels by: voiceprint (default, offline) or pyannote")
    t.add_argument("--no-known-voices", action="store_true", help="do not name voices from the speaker library")
    t.add_argument("--channels", choices=("auto", "mix", "split"), default=None,
                   help="split: transcribe each channel on its own, one speaker per channel (interview recorders, "
                        "calls); mix: one mono mix (stereo: the mean; a film: its centre channel, where the dialogue is; "
                        "other layouts: raised to the loudest channel's level); auto (the default with --speakers): split when the "
                        "channels hold different voices")
    t.add_argument("--audio-track", metavar="N|LANG",
                   help="which audio track of a video with several: its number (1 = first) or language code "
                        "(default: the track marked as the default, else the loudest)")
    t.add_argument("--batch-size", type=positive_int, help="windows per forward pass (Wav2Vec2; default 8 on CUDA, 1 on CPU)")
    t.add_argument("--chunk-s", type=positive_float, help="Wav2Vec2 window length in seconds (default 20)")
    t.add_argument("--stride-s", type=positive_float, help="Wav2Vec2 left/right context in seconds (default 2)")
    t.add_argument("--no-vocabulary", action="store_true",
                   help="CTC: decode greedily, ignoring the model's vocabulary.txt word list (an adapted model)")
    t.add_argument("--raw-format", metavar="RATE[:CH[:FMT]]",
                   help="layout of headerless .raw/.pcm inputs (and of - when given), e.g. 16000:1:s16le (the default)")
    t.add_argument("--no-download", action="store_true", help="never touch the network")
    t.add_argument("--cluster", metavar="ray[://HOST:PORT]",
                   help="transcribe on Ray workers, each holding the model: ray starts Ray on this machine, "
                        "ray://HOST:PORT joins a running cluster (pip install 'speechstudio[cluster]'; docs/cluster.md)")
    t.add_argument("--worker-cores", type=positive_int, default=1, metavar="N",
                   help="with --cluster on CPUs: cores per worker (default 1; on GPUs one worker per GPU)")
    t.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no model line or tips")
    t.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    t.set_defaults(func=cmd_transcribe)


def _subtitle_options(args):
    limits = ("max_line_width", "max_line_count", "max_cue_s", "min_cue_s", "max_cps")
    for flag in limits:         # not nan or inf either: a cue cannot last forever
        if not 0 <= getattr(args, flag) < float("inf"):
            raise UsageError(f"--{flag.replace('_', '-')} must be >= 0 (0 = no limit), got {getattr(args, flag)}")
    if 0 < args.max_cue_s < args.min_cue_s:
        raise UsageError(f"--min-cue-s {args.min_cue_s} is longer than --max-cue-s {args.max_cue_s}")
    if 0 < args.max_line_width < MIN_LINE_WIDTH:
        raise UsageError(f"--max-line-width must be 0 (no limit) or at least {MIN_LINE_WIDTH} characters "
                         f"(got {args.max_line_width}: words would be cut into unreadable pieces)")
    return SubtitleOptions(highlight_words=args.highlight_words, **{f: getattr(args, f) for f in limits})


def cmd_transcribe(args) -> int:
    try:
        raw = parse_raw_format(args.raw_format) if args.raw_format else None
    except AudioDecodeError as e:
        raise UsageError(f"--raw-format: {e}") from None
    request = TranscriptionRequest.build(
        model=args.model, device=args.device, precision=args.precision, language=args.language, task=args.task,
        initial_prompt=args.initial_prompt, hotwords=args.hotwords, speakers=args.speakers, diarizer=args.diarizer,
        known_voices=not args.no_known_voices, channels=args.channels, audio_track=args.audio_track,
        formats=parse_formats(args.format), output_dir=args.output_dir, overwrite=args.overwrite,
        subtitles=_subtitle_options(args), raw=raw, batch_size=args.batch_size, chunk_s=args.chunk_s,
        stride_s=args.stride_s, vocabulary="off" if args.no_vocabulary else "auto",
        allow_download=not args.no_download)
    if args.output_dir:           # files cannot be written there: fail before any work, as speak and audiobook do
        try:
            check_folder_destination(Path(args.output_dir))
        except UsageError as e:
            raise UsageError(f"--output-dir {e}") from None
    items, ignored = collect_inputs(args.paths, recursive=args.recursive)
    summary = BatchSummary()
    summary.failed.extend((p, f"{p}: {why}") for p, why in ignored if why == MISSING)
    summary.ignored.extend((p, why) for p, why in ignored if why != MISSING)
    if not items:
        for path, reason in ignored:
            print(f"ignored {path}: {reason}", file=sys.stderr)
        folders = ", ".join(str(p) for p in args.paths if str(p) != "-" and Path(p).is_dir())      # named, not a riddle
        raise UsageError(f"no audio or video files in {folders}" if folders else "no input files to transcribe")

    plans = plan_outputs(items, request.formats, Path(args.output_dir) if args.output_dir else None)
    wanted = asked(request)        # resolved, not loaded: a model is loaded only for files to transcribe
    pending = [it for it, plan in zip(items, plans) if plan_work(it.path, plan, args.overwrite, asked=wanted).todo]
    recognizer = pool = None
    if pending and args.cluster:     # the workers load the model; Ray reachable before any work
        pool = RayPool(parse_cluster(args.cluster), worker_cores=args.worker_cores, debug=args.debug)
    elif pending:                    # nothing to do: do not spend seconds loading a model
        recognizer, message = request.load(progress=not args.quiet, workers=batch_workers(len(pending)))
        print_model_line(message, quiet=args.quiet)
        for note in request.check(recognizer):
            print(f"note: {note}", file=sys.stderr)

    total_s = sum(_safe_duration(it) for it in pending)
    cancel = threading.Event()
    bar = _audio_bar(tqdm, round(total_s, 1) if total_s else None, quiet=args.quiet)

    def advance(seconds: float) -> None:
        if seconds <= 0:
            return
        if bar.total is not None and bar.n + seconds > bar.total:
            bar.total = bar.n + seconds
        bar.update(seconds)

    t0 = time.perf_counter()
    credited = 0.0
    try:
        events = pool.run(items, request, cancel=cancel) if pool else run_batch(
            items, recognizer, request, cancel=cancel, debug=args.debug)
        for ev in events:
            summary.add(ev)
            if ev.kind in ("start", "done", "failed", "skipped"):   # a file skipped or refused has no "start"
                bar.set_description(f"{ev.index + 1}/{len(items)} {ev.item.path.name[:30]}")
            if ev.kind == "start":
                credited = 0.0
            elif ev.kind == "segment" and ev.position_s > credited:
                advance(ev.position_s - credited)
                credited = ev.position_s
            elif ev.kind in ("done", "failed"):
                full = ev.duration_s if ev.kind == "done" else _safe_duration(ev.item)
                advance((full or 0.0) - credited)
                credited = 0.0
                bar.set_postfix_str(f"done {summary.done}, skipped {summary.skipped}, failed {len(summary.failed)}")
                if ev.kind == "done":
                    info = ev.info      # "French (fr, probability 0.99) -> whisper-base"; several: seconds each
                    spoken = sorted(spoken_languages(ev.segments).items(), key=lambda kv: -kv[1])
                    if info is not None and (info.language_probability is not None or len(spoken) > 1):
                        said = (f"no speech found -> {info.model_id}" if info.language is None else
                                (", ".join(f"{language_name(k)} ({k}) {s:.1f} s" for k, s in spoken) if len(spoken) > 1
                                 else f"{language_name(info.language)} ({info.language}, probability "
                                 f"{info.language_probability:.2f}" + ("; unsure: if wrong, pass --language"
                                                                       if info.language_probability < UNSURE else "")
                                 + ")") + f" -> {info.model_id}"
                                + (" (translated to English)" if info.task == "translate" else ""))
                        tqdm.write(f"{ev.item.path.name}: {said}", file=sys.stderr)
                    if ev.info is not None and request.speakers is not None:
                        who = Diarization([], list(ev.info.speakers), could_be=ev.info.speakers_could_be)
                        tqdm.write(f"{ev.item.path.name}: {who.summary()}", file=sys.stderr)
                    for w in ev.warnings:
                        tqdm.write(f"warning: {w}", file=sys.stderr)
                    for out in ev.outputs:
                        tqdm.write(str(out))
                else:
                    tqdm.write(f"failed: {_failure_text(ev.item.path, ev.reason)}", file=sys.stderr)
            elif ev.kind == "skipped":
                bar.set_postfix_str(f"done {summary.done}, skipped {summary.skipped}, failed {len(summary.failed)}")
    except KeyboardInterrupt:
        cancel.set()
        summary.cancelled = True
    finally:
        if not summary.cancelled and bar.total and bar.n < bar.total:
            bar.total = bar.n       # a header promised more audio than the file held (truncated): the run is done
            bar.refresh()
        bar.close()
        if pool is not None:
            pool.close()
    summary.wall_s = time.perf_counter() - t0
    _print_summary(summary, inputs=len(items))

    if summary.cancelled:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if summary.failed else EXIT_OK


_BAR_KNOWN = "{l_bar}{bar}| {n:.0f}/{total:.0f} s audio [{elapsed}<{remaining}] {postfix}"
_BAR_UNKNOWN = "{desc}{n:.0f} s audio [{elapsed}] {postfix}"


def _audio_bar(tqdm, total: float | None, *, quiet: bool):
    """A tqdm bar counting seconds of audio on stderr; without a ``total`` (None: no pending input has a known
    duration) or past it, the count alone. Not a terminal (cron, ``2>log``): plain lines, one when it starts, then
    at most one every ``LOG_INTERVAL_S`` (30 s) and one when it ends (:func:`speechstudio.progress.bar_output`);
    a new file's name or count redraws the bar on a terminal only."""
    tty = is_terminal(sys.stderr)

    class AudioBar(tqdm):
        def set_description(self, desc=None, refresh=True):
            super().set_description(desc, refresh=refresh and tty)

        def set_postfix_str(self, s="", refresh=True):
            super().set_postfix_str(s, refresh=refresh and tty)

        @property
        def format_dict(self):
            d = super().format_dict
            total, n = d.get("total"), d.get("n") or 0
            if not total or n >= total + 0.5:     # tqdm drops such a total: no {total:.0f} then
                d["bar_format"] = _BAR_UNKNOWN
            return d

    return AudioBar(total=total, unit="s audio", disable=quiet, dynamic_ncols=tty, bar_format=_BAR_KNOWN,
                    **bar_output(sys.stderr))


def _safe_duration(item) -> float:
    """Seconds of ``item`` from its container (no decoding); 0 when unknown, unreadable or a pipe."""
    if is_stream(item.path):            # a pipe can be read once: by the transcription
        return 0.0
    try:
        return AudioReader(item.path).info.duration_s or 0.0
    except Exception:
        return 0.0


def _print_summary(s, max_listed: int = 10, inputs: int | None = None) -> None:
    err = sys.stderr
    audio = f"; {s.audio_s / 3600:.3f} h audio ({clock(s.audio_s)})" if s.done else ""
    speed = f", RTFx {s.rtfx:.1f}" if s.done else ""
    print(f"\nSummary: {s.done} done, {s.skipped} skipped, {len(s.failed)} failed, "
          f"{len(s.ignored)} ignored{audio} in {clock(s.wall_s)} wall{speed}", file=err)
    if s.already:
        print(f"  skipped: {s.already} already transcribed (use --overwrite to transcribe "
              f"{'it' if s.already == 1 else 'them'} again)", file=err)
    if s.infos:
        groups: dict[str, list] = {}      # files per language, lowest detection probability: "fr 2 (...), en 5"
        for _, info in s.infos:
            groups.setdefault(info.language or "none", []).append(info.language_probability)
        parts = []
        for lang, probs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            known = [p for p in probs if p is not None]
            parts.append(f"{lang} {len(probs)}" + (f" (probability >= {min(known):.2f})" if known else ""))
        print(f"  languages: {', '.join(parts)}", file=err)
    for path, reason in s.failed:       # its first line: a --debug traceback was printed already
        print(f"  failed: {_failure_text(path, reason.splitlines()[0] if reason else reason)}", file=err)
    for w in s.warnings:
        print(f"  warning: {w}", file=err)
    for path, reason in s.ignored[:max_listed]:
        print(f"  ignored: {path}: {reason}", file=err)
    if len(s.ignored) > max_listed:
        print(f"  ... and {len(s.ignored) - max_listed} more ignored (not media files)", file=err)
    if s.cancelled:
        what = s.current if s.current is not None else "the file in progress"
        print(f"  interrupted: {what} was not written; rerun to resume", file=err)
    elif inputs is not None and (left := inputs - s.done - s.skipped - len(s.failed)) > 0:
        # a folder that cannot take outputs (a full disk) ends the batch: the next files would fail the same way
        print(f"  stopped: {left} input{'s' if left > 1 else ''} not started (the failure above would repeat); "
              f"rerun to resume", file=err)


def _failure_text(path, reason: str) -> str:
    """``reason`` of a failed input, with the input's ``path`` before it unless its first line names it already."""
    return reason if str(path) in reason.split("\n", 1)[0] else f"{path}: {reason}"
