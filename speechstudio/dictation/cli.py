"""``speechstudio dictate``: live transcription in the terminal (microphone or a file played live), or into the
focused application (``--output type|paste|clipboard``). Exit: 0, 1 error, 2 usage, 130 interrupted file session."""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from dataclasses import replace


def register(subparsers) -> None:
    from speechstudio.asr.stream_geometry import DEFAULT_ENDPOINT_S, DEVICE_DEFAULTS
    from speechstudio.asr.whisper_stream import DEFAULT_AGREEMENT, DEFAULT_UPDATE_S

    gpu, cpu = DEVICE_DEFAULTS["cuda"], DEVICE_DEFAULTS["cpu"]

    d = subparsers.add_parser(
        "dictate", help="live transcription from the microphone (or a file played live)",
        description="Print the transcript as it is spoken. Wav2Vec2 CTC models stream in fixed-shape windows "
                    "(lowest latency; CUDA Graph replay on GPU); Whisper models re-decode a growing buffer and "
                    "commit the words two consecutive decodes agree on (LocalAgreement-2, Machacek et al. 2023).",
        epilog="examples:\n"
               "  speechstudio dictate   (the default microphone; Ctrl+C ends)\n"
               "  speechstudio dictate --list-devices\n"
               "  speechstudio dictate --file talk.wav   (a recording played as if live)\n"
               "  speechstudio dictate --output type   (types the words into the window that has the focus)")
    d.add_argument("--model", help="Wav2Vec2 CTC or Whisper model: name, Hugging Face id or folder "
                                   "(default: an installed CTC model, else Whisper)")
    d.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N (default auto)")
    d.add_argument("--precision", default="auto", choices=("auto", "fp32", "fp16", "bf16"))
    d.add_argument("--language", default="auto",
                   help="Whisper: language code (en, fr, ...) or auto to detect it on the first words (default auto)")
    d.add_argument("--task", default="transcribe", choices=("transcribe", "translate"),
                   help="Whisper: translate = speech in any language to English text (multilingual models)")
    d.add_argument("--hotwords", metavar="TEXT", help="Whisper: names and jargon the model should prefer")
    d.add_argument("--input-device", metavar="N",
                   help="microphone: PortAudio input device index or name; system:NAME for what the computer "
                        "plays (a PulseAudio/PipeWire monitor source, see --list-devices)")
    d.add_argument("--list-devices", action="store_true",
                   help="list input devices (microphones, then system-audio monitor sources) and exit")
    d.add_argument("--file", metavar="AUDIO", help="play this recording through the streaming path instead")
    d.add_argument("--fast", action="store_true", help="with --file: as fast as possible, not real time")
    for i, (flag, what) in enumerate((("chunk-s", "audio committed per model call, seconds"),
                                      ("left-context-s", "context before each chunk, seconds"),
                                      ("lookahead-s", "context after each chunk, seconds; adds latency"))):
        d.add_argument(f"--{flag}", type=float, help=f"CTC: {what} (default {gpu[i]} on CUDA, {cpu[i]} on CPU)")
    d.add_argument("--update-s", type=float, default=DEFAULT_UPDATE_S,
                   help=f"Whisper: new audio between two decodes, seconds (default {DEFAULT_UPDATE_S:g})")
    d.add_argument("--agreement", type=int, default=DEFAULT_AGREEMENT, metavar="N",
                   help=f"Whisper: commit words N consecutive decodes agree on (default {DEFAULT_AGREEMENT})")
    d.add_argument("--beam-size", type=int, metavar="N",
                   help="Whisper: beam width (default 1 on CPU: a decode per update must stay short; 5 on CUDA)")
    d.add_argument("--block-ms", type=float, default=20.0, help="audio block length in ms (default 20)")
    d.add_argument("--endpoint-s", type=float, default=DEFAULT_ENDPOINT_S,
                   help=f"silence that ends an utterance, seconds; 0 = never (default {DEFAULT_ENDPOINT_S})")
    d.add_argument("--threshold-db", type=float, default=-45.0,
                   help="RMS level in dBFS below which audio counts as silence (default -45)")
    d.add_argument("--no-cuda-graph", action="store_true", help="CTC: run the model eagerly on CUDA too")
    d.add_argument("--no-vocabulary", action="store_true",
                   help="CTC: decode greedily, ignoring the model's vocabulary.txt word list (an adapted model)")
    d.add_argument("--no-download", action="store_true", help="never touch the network")
    d.add_argument("--output", default="stdout", choices=("stdout", "type", "paste", "clipboard"),
                   help="where the text goes: stdout (default), type = key events into the focused window, "
                        "paste = via the clipboard and the paste shortcut (your clipboard is restored), "
                        "clipboard = keep the whole text on the clipboard")
    d.add_argument("--paste-shortcut", default="ctrl+v", choices=("ctrl+v", "ctrl+shift+v", "shift+insert"),
                   help="--output paste: the target's paste shortcut (terminals: ctrl+shift+v or shift+insert)")
    d.add_argument("--key-delay-ms", type=float, default=0.0,
                   help="--output type: pause after every key, ms (default 0; raise it if an app drops letters)")
    d.add_argument("--commands", default="auto", choices=("auto", "on", "off"),
                   help="spoken punctuation and commands (\"comma\", \"new line\", \"scratch that\", \"stop dictating\"; "
                        "table: <data dir>/dictation/commands.json); auto = on except for stdout")
    d.add_argument("--toggle", action="store_true",
                   help="start or stop dictation in the running SpeechStudio app (for a desktop shortcut, e.g. on "
                        "Wayland where apps cannot read global keys) and exit")
    d.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    d.set_defaults(func=cmd_dictate)


class _Printer:
    """Terminal: redraw one line in place; pipe: one line per stable piece, final text last."""

    def __init__(self, out=None, separator=lambda: " ") -> None:
        self.out = out or sys.stdout
        self.sep = separator          # joins words: " ", or "" for scripts without spaces (Whisper ja/zh...)
        self.tty = self.out.isatty()

    def update(self, u, composed: str | None = None) -> None:
        """``composed``: the text with spoken commands applied, shown in place of the words heard (a pipe then
        gets it once, at the end: a "scratch that" cannot take back lines already written)."""
        stable = u.stable_text if composed is None else composed
        if self.tty:
            if u.kind == "final":
                self._redraw(stable, "")
                if stable:
                    self.out.write("\n")
            else:
                self._redraw(stable, u.tail_text)
        elif u.words and composed is None:
            self.out.write(self.sep().join(w.text for w in u.words) + "\n")
        self.out.flush()

    def _redraw(self, stable: str, tail: str) -> None:
        width = max(20, shutil.get_terminal_size((100, 20)).columns - 1)
        text = f"{stable}{self.sep()}{tail}".strip() if tail else stable
        if len(text) > width:  # keep the newest words in view
            cut = len(text) - width + 1
            stable, tail = ("…" + text[cut:], "") if cut >= len(stable) else ("…" + stable[cut:], tail)
        line = stable + (((self.sep() if stable else "") + "\033[2m" + tail + "\033[0m") if tail else "")
        self.out.write("\r\033[K" + line)

    def finish(self, text: str) -> None:
        if not self.tty:
            self.out.write(text + "\n")
        self.out.flush()


def cmd_dictate(args) -> int:
    from speechstudio.asr.languages import normalize_language
    from speechstudio.asr.live import (DETECT_SPEECH_S, Session, auto_language_detector, default_dictation_model,
                                       dictation_stats, open_recognizer, pick_by_first_words)
    from speechstudio.asr.sources import FileSource, MicSource, list_input_devices
    from speechstudio.audio.backends import AudioUnavailableError
    from speechstudio.asr.stream_geometry import StreamConfig, WindowGeometry
    from speechstudio.asr.whisper_stream import AgreementConfig
    from speechstudio.errors import UsageError

    if args.toggle:
        from speechstudio.dictation.control import send_command

        print(send_command("toggle"))
        return 0
    if args.list_devices:
        found = list_input_devices()
        for idx, name, rate in found:
            print(f"{idx}\t{name}\t{rate} Hz")
        if not found:
            print("no input device found (no microphone, no system-audio monitor source)")
        return 0
    if args.fast and not args.file:
        raise UsageError("--fast only applies to --file")
    for flag, low, high, unit in (("key_delay_ms", 0, 1000, "ms"), ("block_ms", 1, 1000, "ms"),
                                  ("threshold_db", -120, 0, "dBFS"), ("endpoint_s", 0, 600, "s (0 = never)")):
        if not low <= getattr(args, flag) <= high:         # nan too: it read every block as silence
            raise UsageError(f"--{flag.replace('_', '-')} {getattr(args, flag)}: expected {low}..{high} {unit}")
    if args.beam_size is not None and not 1 <= args.beam_size <= 20:
        raise UsageError(f"--beam-size {args.beam_size}: expected 1..20")
    config = StreamConfig(chunk_s=args.chunk_s, left_context_s=args.left_context_s, lookahead_s=args.lookahead_s,
                          endpoint_s=args.endpoint_s if args.endpoint_s > 0 else None,
                          threshold_db=args.threshold_db, use_cuda_graph=not args.no_cuda_graph and "auto")
    early = config.resolved("cuda" if str(args.device).startswith("cuda") else "cpu")
    WindowGeometry.from_seconds(early.chunk_s, early.left_context_s, early.lookahead_s)  # bad values: exit 2 now
    agreement = replace(AgreementConfig.from_stream_config(replace(config, chunk_s=None)), update_s=args.update_s,
                        agreement=args.agreement).check()
    language = normalize_language(args.language)
    if args.file:
        source = FileSource(args.file, block_ms=args.block_ms, realtime=not args.fast)
    else:
        dev = args.input_device
        try:
            source = MicSource(int(dev) if dev is not None and dev.isdigit() else dev, block_ms=args.block_ms)
        except AudioUnavailableError as e:
            raise AudioUnavailableError(f"{e}; or dictate a recording: --file AUDIO") from None

    from speechstudio.dictation.sinks import open_sink

    sink = open_sink(args.output, paste_shortcut=args.paste_shortcut,  # missing helpers: a message before loading
                     key_delay_s=args.key_delay_ms / 1000.0)

    from speechstudio.asr.load import load_model

    spec, chosen = args.model, ""
    if not spec:
        spec, chosen = default_dictation_model(language)
    recognizer, blocks = None, source.blocks()
    ml = auto_language_detector(spec, language) if not args.model else None
    if ml is not None:      # auto language, an English-only default: the first words pick the model
        if not args.file:
            print(f"listening... the first {DETECT_SPEECH_S:g} s of speech pick the language", file=sys.stderr)
        detector, message = load_model(str(ml.path), device=args.device, precision=args.precision, batch_size=1,
                                       allow_download=False, progress=True)
        detector.model_id = ml.model_id
        guess, blocks, why = pick_by_first_words(detector, blocks, source.sample_rate, spec)
        if why:
            recognizer, language, chosen = detector, guess.language, why
        del detector
    if recognizer is None:
        recognizer, message = load_model(spec, device=args.device, precision=args.precision, batch_size=1,
                                         allow_download=not args.no_download, progress=True,
                                         vocabulary="off" if getattr(args, "no_vocabulary", False) else "auto")
    from speechstudio.asr.family import capabilities

    windows = capabilities(recognizer.engine).streaming == "windows"
    rec = open_recognizer(recognizer, config if windows else agreement, input_rate=source.sample_rate,
                          language=language, task=args.task, hotwords=args.hotwords, beam_size=args.beam_size,
                          backlog_s=(lambda: source.backlog_s) if hasattr(type(source), "backlog_s") else None)
    print(f"dictation model {chosen}" if chosen else message, file=sys.stderr)
    if chosen:
        print(message, file=sys.stderr)
    print(f"streaming: {rec.describe()}; input "
          f"{'file ' + str(args.file) if args.file else 'microphone ' + getattr(source, 'name', '')} "
          f"at {source.sample_rate} Hz", file=sys.stderr)
    if not args.file:
        print("listening... press Ctrl+C to stop", file=sys.stderr)

    decoder = getattr(rec, "decoder", None)
    printer = _Printer(separator=(lambda: decoder.separator) if decoder is not None else (lambda: " "))
    from speechstudio.dictation.commands import CommandTable
    from speechstudio.dictation.composer import Composer

    composer = None         # spoken commands: --commands on, or auto with an output other than stdout
    on = args.commands == "on" or (args.commands == "auto" and args.output != "stdout")
    if args.output != "stdout" or on:
        composer = Composer(CommandTable.load().for_language(language) if on else (),
                            casing="keep" if capabilities(recognizer.engine).casing else "sentence",
                            separator=(lambda: decoder.separator) if decoder is not None else " ")
    session, interrupted = Session(rec, recognizer.model_id, source.sample_rate), False
    t0 = time.perf_counter()

    def show(events, warning_prefix: str) -> None:
        for x in events:
            if isinstance(x, str):
                print(f"{warning_prefix}warning: {x}", file=sys.stderr)
            else:
                edit = composer.feed(x) if composer is not None else None
                printer.update(x, composer.text if composer is not None and on else None)
                if edit is not None and sink is not None:
                    sink.apply(edit)
                if composer is not None and composer.stop_requested:
                    source.stop()

    try:
        for block in blocks:
            show(session.push(block), "\n")
    except KeyboardInterrupt:
        interrupted = True
        source.stop()
    show(session.stop(), "")
    edit = composer.flush() if composer is not None and sink is not None else None
    if edit is not None:
        sink.apply(edit)
    printer.finish(composer.text if composer is not None else rec.text)
    wall = time.perf_counter() - t0
    st = dictation_stats(rec, session.latencies)
    what = "decodes" if hasattr(rec, "update_audio_s") else "chunks"
    parts = [f"{st['audio_s']:.1f} s audio in {wall:.1f} s", f"{st['updates']} {what}"]
    if st["compute_p50_s"] is not None:
        parts.append(f"compute per {what[:-1]} p50 {st['compute_p50_s'] * 1000:.0f} ms, "
                     f"p95 {st['compute_p95_s'] * 1000:.0f} ms (RTF {st['rtf']:.2f})")
    if st["latency_p50_s"] is not None:
        parts.append(f"latency word end to commit p50 {st['latency_p50_s']:.2f} s, p90 {st['latency_p90_s']:.2f} s")
    if st["language"]:
        prob = st["language_probability"]
        parts.append(f"language {st['language']}" + (f" (p={prob:.2f})" if prob is not None else ""))
    print("dictate: " + "; ".join(parts), file=sys.stderr)
    for warning in getattr(source, "warnings", ()):     # the recording's decode warnings, as transcribe says them
        print(f"warning: {warning}", file=sys.stderr)
    return 130 if interrupted and args.file else 0
