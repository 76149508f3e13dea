"""The registry of text-to-speech families (shaped like :mod:`speechstudio.asr.family`) and the
:class:`Voice` every family loads: ``TtsFamily`` detects, loads, states ``capabilities``, checks settings
and assembles Hub downloads; built in (``BUILTIN``): ``vits``, ``speecht5``, ``fastspeech2``. No torch until ``load``."""
from __future__ import annotations

import json
import math
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol, runtime_checkable

from speechstudio.asr.device import resolve_device, resolve_precision
from speechstudio.atomic import atomic_folder
from speechstudio.errors import ModelNotFoundError, SpeechStudioError, UsageError
from speechstudio.hub.detect import read_folder
from speechstudio.registry import Registry

#: The built-in families' modules, in detection order; each defines ``FAMILY``.
BUILTIN = ("speechstudio.tts.family_vits", "speechstudio.tts.speecht5", "speechstudio.tts.fastspeech2")

#: The family of a voice that names none (a store voice saved before families had names).
DEFAULT = "vits"
#: The controls of VITS / Piper voices (``vits.SynthesisSettings`` fields).
VITS_CONTROLS = ("speaker", "length_scale", "noise_scale", "noise_w", "seed")

#: Accepted ranges of the controls, (low, high, low is allowed): beyond them VITS output is no longer
#: speech and durations grow exponentially with noise_w (3.0: a 6-word sentence 21 s long).
CONTROL_RANGES = {"length_scale": (0.0, 10.0, False), "noise_scale": (0.0, 10.0, True), "noise_w": (0.0, 2.0, True),
                  "pitch": (-12.0, 12.0, True)}


class UnknownSpeakerError(SpeechStudioError):
    """A speaker id / name that the voice does not have."""


@dataclass(frozen=True)
class SynthesisSettings:
    """Per-call controls. ``None`` means the voice's default (Piper's .onnx.json ``inference``)."""

    speaker: int | str | None = None
    noise_scale: float | None = None
    noise_w: float | None = None
    length_scale: float | None = None
    seed: int | None = None
    #: Pitch shift in semitones (formants kept, ``tts.pitch.shift_pitch``); ``None``: the voice's
    #: own ``VitsVoice.pitch_semitones`` (0 except for clones that measured one), 0: none.
    pitch: float | None = None


@runtime_checkable
class Voice(Protocol):
    """A loaded voice of any family (``vits.VitsVoice``, ``voice_text.FamilyVoice``). ``family``: its registry name
    (what it can do: ``of(voice).capabilities``); ``kind``: its file format (``transformers`` | ``piper``);
    ``sample_rate`` Hz; ``speakers`` name -> id; ``defaults`` the controls' defaults; ``warnings`` text it could not
    say (the caller clears them); ``clone_of`` the base voice of a clone."""

    name: str
    family: str
    kind: str
    sample_rate: int
    language: str
    speakers: dict
    num_speakers: int
    device: str
    dtype: str
    defaults: dict
    warnings: list
    clone_of: str | None

    def speaker_id(self, speaker: int | str | None) -> int | None:
        """Speaker name / id -> int id (``None``: the default). Raises ``UnknownSpeakerError``."""

    def text_to_ids(self, sentence: str) -> list[int]:
        """Token ids of one sentence. Raises ``EmptyTextError`` / ``UnsayableTextError``."""

    def synthesize(self, sentence: str, settings: SynthesisSettings = SynthesisSettings()):
        """One sentence -> ``np.ndarray[float32]`` ``(n_samples,)`` at ``sample_rate`` Hz, [-1, 1]."""


def check_settings(settings, flags: bool = False) -> None:
    """Raise a one-line ``UsageError`` for a control outside ``CONTROL_RANGES``, NaN / inf, or a seed outside
    [-2**63, 2**64); ``None`` passes. ``flags=True`` names the CLI flags (``--noise-w``)."""
    for name, (low, high, low_ok) in CONTROL_RANGES.items():
        value = getattr(settings, name)
        if value is None:
            continue
        label = "--" + name.replace("_", "-") if flags else name
        if not math.isfinite(value) or value > high or value < low or (value == low and not low_ok):
            raise UsageError(f"{label} must be {'>=' if low_ok else '>'} {low:g} and <= {high:g} (got {value})")
    if settings.seed is not None and not -2**63 <= int(settings.seed) < 2**64:
        raise UsageError(f"{'--seed' if flags else 'seed'} must be a 64-bit integer (got {settings.seed})")


@dataclass(frozen=True)
class TtsCapabilities:
    """What every voice of a family can do: ``trainable`` (a base for voice cloning), ``controls``
    (``SynthesisSettings`` fields it uses; ``pitch``: all)."""

    trainable: bool = False
    controls: tuple[str, ...] = ()


@dataclass(frozen=True)
class VoiceSource:
    """A candidate voice, read once for every family's ``detect``: ``spec`` as given, ``path`` (``None``
    for an id not on disk), the file ``names`` there, ``config`` (its ``config.json``, or ``None``)."""

    spec: str
    path: Path | None
    names: frozenset[str] = frozenset()
    config: dict | None = None

    @property
    def model_type(self) -> str | None:
        """``config.json``'s ``model_type`` (``None`` without one)."""
        return (self.config or {}).get("model_type")


@dataclass
class TtsFamily:
    """One family of voices. Subclasses override ``detect`` and ``load``; a family whose Hub
    checkpoints need companions (a vocoder, a tokenizer) overrides ``assemble``."""

    name: str
    label: str
    capabilities: TtsCapabilities = field(default_factory=TtsCapabilities)

    def detect(self, source: VoiceSource) -> bool:
        """True when ``source`` is a voice of this family (by its files / ``config.json``)."""
        raise NotImplementedError

    def load(self, source: VoiceSource, *, device: str, precision: str, name: str | None, optimize: bool = True,
             runtime: str = "auto") -> Voice:
        """The loaded :class:`Voice` (a ``voice_text.VoiceText``); ``device`` / ``precision`` are resolved.
        Raises ``ModelNotFoundError``."""
        raise NotImplementedError

    def assemble(self, hf_id: str, snapshot: Path, dest: Path, snapshot_fn) -> Path | None:
        """Build the store folder ``dest`` for ``hf_id`` downloaded in ``snapshot`` (``snapshot_fn`` fetches
        companions) and return it; ``None`` (default): used from the Hugging Face cache as it is."""
        return None

    def describe(self, ref) -> str:
        """The kind shown by ``voices list`` for ``ref`` (a ``VoiceRef``): the family's name."""
        return self.name

    def check_options(self, voice, settings, *, flags: bool = False) -> list[str]:
        """Check ``settings`` for ``voice`` before any audio is made; returns one note per set control
        this family ignores. Raises ``UsageError`` for a value outside ``CONTROL_RANGES``."""
        check_settings(settings, flags=flags)
        return [f"voice {getattr(voice, 'name', voice)} ({self.name}) has no {control} control; ignored"
                for control in ("length_scale", "noise_scale", "noise_w", "seed")
                if getattr(settings, control) is not None and control not in self.capabilities.controls
                and not (control == "length_scale" and settings.length_scale == 1.0)]


def link_tree(src: Path, dest: Path) -> None:
    """Hard-link (else copy) every file under ``src`` into ``dest``, keeping relative paths; the
    HF cache's symbolic links are followed to their blobs. Hidden entries (``.cache``) are skipped."""
    for path in sorted(Path(src).rglob("*")):
        rel = path.relative_to(src)
        if any(part.startswith(".") for part in rel.parts) or path.is_dir():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        real = os.path.realpath(path)
        try:
            os.link(real, target)
        except OSError:
            shutil.copyfile(real, target)


def to_device(model, device: str, precision: str):
    """``model.eval()`` on ``device`` in FP16 (``precision == "fp16"``) or FP32."""
    import torch

    model.eval()
    return model.to(device=device, dtype=torch.float16 if precision == "fp16" else torch.float32)


@dataclass
class TransformersFamily(TtsFamily):
    """A family that is one transformers ``model_type``: ``loader(spec, config, device, precision, name)`` builds
    the voice, ``parts(folder, snapshot_fn)`` adds a Hub download's companions."""

    model_type: str = ""
    loader: Callable | None = None
    parts: Callable | None = None

    def detect(self, source: VoiceSource) -> bool:
        return source.model_type == self.model_type

    def load(self, source: VoiceSource, *, device: str, precision: str, name: str | None, optimize: bool = True,
             runtime: str = "auto"):
        from transformers import AutoConfig

        try:
            config = AutoConfig.from_pretrained(source.spec, local_files_only=True)
            return self.loader(source.spec, config, device, precision, name)
        except (OSError, ValueError) as exc:
            if isinstance(exc, SpeechStudioError):
                raise
            raise ModelNotFoundError(f"{source.spec}: {self.model_type} checkpoint incomplete "
                                     f"({str(exc).splitlines()[0][:120]})") from exc

    def assemble(self, hf_id: str, snapshot: Path, dest: Path, snapshot_fn) -> Path:
        with atomic_folder(dest) as tmp:
            link_tree(snapshot, tmp)
            self.parts(tmp, snapshot_fn)
            meta = {"kind": "transformers", "family": self.name, "hf_id": hf_id, "path": str(dest),
                    "source": f"downloaded from {hf_id}"}
            (tmp / "voice.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        return dest


_FAMILIES = Registry("voice family", BUILTIN)
#: The registry's calls (:class:`speechstudio.registry.Registry`), as in :mod:`speechstudio.asr.family`.
register, unregister, families, find, get = (_FAMILIES.register, _FAMILIES.unregister, _FAMILIES.all, _FAMILIES.find,
                                             _FAMILIES.get)


def of(voice) -> TtsFamily | None:
    """The family of a loaded voice (its ``family`` attribute), ``None`` when unknown."""
    return _FAMILIES.find(getattr(voice, "family", None))


def check_options(voice, settings, *, flags: bool = False) -> list[str]:
    """``check_options`` of ``voice``'s family (a voice of an unknown family: the range check only)."""
    family = of(voice)
    if family is None:
        check_settings(settings, flags=flags)
        return []
    return family.check_options(voice, settings, flags=flags)


def read_source(spec: str | os.PathLike[str]) -> VoiceSource:
    """``spec`` (file, folder or Hugging Face id: its ``config.json`` from the HF cache) as a :class:`VoiceSource`.
    Raises ``ModelNotFoundError``."""
    text = str(spec)
    path = Path(spec)
    if path.is_file():
        names = frozenset(p.name for p in path.parent.iterdir()) if path.suffix == ".onnx" else frozenset({path.name})
        return VoiceSource(text, path, names)
    if path.is_dir():
        folder = read_folder(path)  # its files and config.json, as a recogniser's folder is read
        return VoiceSource(text, path, folder.names, folder.config)
    if text.count("/") != 1 or text.startswith((".", "/")) or text.endswith(".onnx"):
        raise ModelNotFoundError(f"{spec}: no such voice file, folder or Hugging Face id")
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(text, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ModelNotFoundError(f"{spec}: not a downloaded voice ({str(exc).splitlines()[0][:120]})") from exc
    return VoiceSource(text, None, frozenset({"config.json"}), config.to_dict())


def detect(source: VoiceSource) -> TtsFamily:
    """The family whose voice ``source`` is, in registry order. Raises ``ModelNotFoundError`` naming the source
    and the families."""
    for family in families():
        if family.detect(source):
            return family
    names = ", ".join(_FAMILIES.names())
    if source.config is None:
        raise ModelNotFoundError(f"{source.spec}: no voice here (no config.json of a voice model, no Piper .onnx; "
                                 f"voice families: {names})")
    raise ModelNotFoundError(f"{source.spec}: not a voice model SpeechStudio speaks with (model_type "
                             f"{source.model_type!r}; voice families: {names})")


def load_voice(source: str | os.PathLike, device: str = "auto", precision: str = "auto", name: str | None = None,
               optimize: bool = True, runtime: str = "auto") -> Voice:
    """Load a voice (Piper ``.onnx``, checkpoint folder or Hugging Face id) through the family that
    recognises it. ``device`` ``auto|cpu|cuda``; ``precision`` ``auto|fp32|fp16``; ``optimize``:
    channels-last decoder on CPU; ``runtime`` ``torch|onnx|auto`` (auto: onnx for Piper on CPU, unless
    ``optimize`` is False). Raises ``ModelNotFoundError``, ``PiperVoiceError``, ``UsageError`` (one line: an unknown
    precision or ``runtime``, fp16 on the CPU, runtime onnx on a GPU)."""
    if runtime not in ("auto", "torch", "onnx"):
        raise UsageError(f"unknown runtime {runtime!r} (use auto, torch or onnx)")
    if runtime == "onnx" and device not in ("auto", "cpu"):
        raise UsageError("runtime onnx runs on the CPU only; use runtime torch for a GPU")
    if precision not in ("auto", "fp32", "fp16"):
        raise UsageError(f"unknown precision {precision!r} (use auto, fp32 or fp16)")
    device = resolve_device(device)
    precision = resolve_precision(precision, device)
    if precision == "fp16" and device == "cpu":
        raise UsageError("fp16 needs a CUDA device; use --precision fp32 on CPU")
    source = read_source(source)
    return detect(source).load(source, device=device, precision=precision, name=name, optimize=optimize,
                               runtime=runtime)
