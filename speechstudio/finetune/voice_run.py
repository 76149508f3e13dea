"""Voice cloning as three calls, shared by ``speechstudio finetune voice`` and the Clone voice wizard.

``plan`` checks everything cheap first (base, names, run folder, options); ``prepare_dataset`` builds
and checks the dataset at the base's sample rate; ``train`` yields the trainer's events;
``save_trained_voice`` stores the best checkpoint as a voice. A run lives in ``<data dir>/finetune/runs/NAME/``
(``finetune.run.RunFolder``). Qt-free."""
from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Callable, Iterator

from filelock import FileLock, Timeout

from speechstudio.asr.device import resolve_device
from speechstudio.errors import ModelNotFoundError, SpeechStudioError, UsageError
from speechstudio.finetune.base_format import base_format
from speechstudio.finetune.blend import blend_generator, blend_name
from speechstudio.finetune.build import build_dataset
from speechstudio.finetune.check import whisper_transcriber
from speechstudio.finetune.clone_store import base_license, check_clone_name, save_clone
from speechstudio.finetune.manifest import Manifest
from speechstudio.finetune.parallel import training_precision
from speechstudio.finetune.pitch_match import measure_pitch_match
from speechstudio.finetune.report import format_report, report
from speechstudio.finetune.run import RunError
from speechstudio.finetune.trade import load_trade
from speechstudio.finetune.vits.config import TrainConfig
from speechstudio.finetune.vits.piper_ckpt import checkpoint_base_ref
from speechstudio.finetune.vits.presets import preset as make_preset
from speechstudio.finetune.vits.trained import load_checkpoint_state
from speechstudio.finetune.vits.trainer import load_base, load_trained_generator, train_voice
from speechstudio.hub.paths import data_dir
from speechstudio.tts.voices import _check_name, package_voices, resolve_voice, voices_dir


def finetune_dir() -> Path:
    """``<data dir>/finetune`` (not created here)."""
    return data_dir() / "finetune"


def runs_dir() -> Path:
    """``<data dir>/finetune/runs``: one folder per run, named after the new voice."""
    return finetune_dir() / "runs"


# ----------------------------------------------------------------------------- base voice
@dataclass(frozen=True)
class BaseVoiceInfo:
    """A base voice for the wizard / CLI: ``sample_rate`` (Hz; 0 unknown), ``lacks`` (training-only
    parts the trainer starts fresh), ``license`` (inherited by the clone), ``note`` (one paragraph)."""

    name: str
    kind: str
    sample_rate: int
    lacks: tuple[str, ...]
    license: str
    note: str


def describe_base(ref) -> BaseVoiceInfo:
    """Describe a ``VoiceRef`` as a fine-tuning base (``base_format``; reads small config files only)."""
    fmt = base_format(ref)
    try:
        rate = fmt.sample_rate(ref.location)
    except Exception:  # noqa: BLE001 - unreadable voice: shown as unknown, loading it says why
        rate = 0
    lic = base_license(ref)
    note = fmt.note + f" The new voice inherits the base voice's license: {lic}."
    if "non-commercial" in lic.lower() or "by-nc" in lic.lower().replace(" ", "-"):
        note += " The clone may not be used commercially."
    return BaseVoiceInfo(ref.name, ref.kind, rate, fmt.lacks, lic, note)


# ----------------------------------------------------------------------------- plan
#: ``VoicePlan.preset`` of a run resumed without ``--preset``: the settings stored in its config.json
RUN_SETTINGS = "the run's own settings"


@dataclass
class VoicePlan:
    """Everything a run needs, checked: ``dataset_dir`` (prepared dataset), ``source`` (raw input, None
    when prepared or resuming), ``config`` (the ``TrainConfig``)."""

    name: str
    base: object  # VoiceRef
    base_info: BaseVoiceInfo
    run_dir: Path
    dataset_dir: Path
    source: Path | None
    config: object  # TrainConfig
    resume: bool
    overwrite: bool
    preset: str
    base_notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        c = self.config
        how = self.preset if self.preset == RUN_SETTINGS else f"preset {self.preset}"
        lines = [f"clone: {self.name} from base voice {self.base.name} ({self.base.kind}, {self.base_info.sample_rate} Hz)",
                 f"run folder: {self.run_dir}" + (" (resuming)" if self.resume else ""),
                 f"training: {how}, {c.steps} steps, batch {c.batch_size} x {c.grad_accum}, "
                 f"device {c.device}, precision {training_precision(c.precision, c.device)}, "
                 f"checkpoint every {c.checkpoint_every} steps"]
        return "\n".join(lines)


def train_config(preset: str = "standard", device: str = "auto", **overrides):
    """The ``TrainConfig`` of ``preset`` for ``device`` (``auto`` resolved) with non-None ``overrides``.
    Raises ``UsageError``."""
    return make_preset(preset, resolve_device(device), **{k: v for k, v in overrides.items() if v is not None})


def plan(*, base: str, data: str | None, name: str, run_dir: Path, preset: str | None = None,
         steps: int | None = None, batch_size: int | None = None, grad_accum: int | None = None,
         precision: str = "auto", device: str = "auto", resume: bool = False,
         gradient_checkpointing: bool = False, overwrite: bool = False, checkpoint_every: int | None = None,
         train_prosody: bool = False, lr: float | None = None, keep_base_pitch: bool = False) -> VoicePlan:
    """Check the request and return a :class:`VoicePlan` (nothing trained or written).

    With ``resume`` the run's stored settings are the defaults and options given replace them (``preset``
    None: the run's own; a preset named: its steps and evaluation / checkpoint interval); else ``preset``
    None is ``standard``.
    ``train_prosody`` also trains flow and duration predictor (``freeze_prior=False``); ``lr`` is
    ``generator_lr``; ``keep_base_pitch`` sets ``pitch_by_rate=False``. ``base``: a voice name, folder,
    ``.onnx``, Piper ``.ckpt`` or a short name of ``piper_ckpt.PIPER_CHECKPOINTS``.

    Raises ``UsageError`` (name taken or invalid, run folder used without ``resume``, nothing to resume,
    no ``data``), ``ModelNotFoundError``, ``OfflineError``."""
    _check_name(name)
    if not overwrite and (voices_dir() / name).exists():
        raise UsageError(f"a voice named {name!r} already exists: choose another --out or add --overwrite")
    if any(v.name == name for v in package_voices()):
        raise UsageError(f"{name!r} is the name of an installed package voice: choose another --out")
    ref = checkpoint_base_ref(base) or resolve_voice(base, allow_download=False)
    if ref.name == name:
        raise UsageError(f"--out {name!r} is the base voice's own name: choose another")
    base_format(ref).check(ref.location)
    info = describe_base(ref)
    run_dir = Path(run_dir)
    latest = run_dir / "checkpoints" / "latest.pt"
    source: Path | None = None
    stored_train: dict = {}
    if resume:
        if not latest.is_file():
            raise UsageError(f"nothing to resume in {run_dir} (no checkpoints/latest.pt): start without --resume")
        dataset_dir = _stored_dataset(run_dir) or run_dir / "data"
        if data:
            check_resume_data(Path(data).expanduser(), dataset_dir, run_dir)
        train, names = config_value(run_dir, "train"), {f.name for f in fields(TrainConfig)}
        train = train if isinstance(train, dict) else {}
        stored_train = {k: v for k, v in train.items() if k in names and v is not None}
    else:
        # Only a checkpoint makes a run worth keeping: a start that failed or was stopped before
        # its first checkpoint (config.json alone) is started again, as its error message advised.
        if latest.is_file():
            raise UsageError(f"run folder {run_dir} already holds a run: add --resume to continue it, "
                             f"or give --run-dir for a new one")
        if not data:
            raise UsageError("--data DIR is needed (an LJSpeech or wav+txt folder, long recordings, "
                             "or a prepared dataset)")
        src = Path(data).expanduser()
        if not src.exists():
            raise UsageError(f"--data {data}: no such file or folder")
        dataset_dir, source = (src, None) if (src / "manifest.json").is_file() else (run_dir / "data", src)
    # On resume the run's own settings are the defaults (the "continue with" hint repeats no
    # options): an option given again replaces the stored value, --device is resolved anew; a preset
    # given again replaces only its steps and intervals.
    kept = {k: v for k, v in stored_train.items() if k != "device"}
    if resume and preset is not None:
        named = make_preset(preset, "cpu")
        kept.update(steps=named.steps, eval_every=named.eval_every, checkpoint_every=named.checkpoint_every)
    config = train_config(preset or "standard", device, **kept)
    config = replace(config, **{k: v for k, v in dict(
        steps=steps, batch_size=batch_size, grad_accum=grad_accum, checkpoint_every=checkpoint_every,
        precision=None if stored_train and precision == "auto" else precision,
        gradient_checkpointing=gradient_checkpointing or None,
        freeze_prior=False if train_prosody else None, pitch_by_rate=False if keep_base_pitch else None,
        generator_lr=lr).items() if v is not None})
    if (steps is not None and checkpoint_every is None and config.checkpoint_every > max(5, steps // 5)
            and not stored_train):  # a resumed run keeps its intervals (its last step is saved and judged anyway)
        # a short run (--steps 50) still gets checkpoints to resume from and evaluations to judge it by
        every = max(5, steps // 5)
        config = replace(config, checkpoint_every=every, eval_every=min(config.eval_every, every))
    label = preset or (RUN_SETTINGS if stored_train else "standard")
    return VoicePlan(name, ref, info, run_dir, dataset_dir, source, config, resume, overwrite, label, [info.note])


def config_value(run_dir, *keys):
    """The value at ``keys`` in ``run_dir/config.json`` (None when missing or unreadable)."""
    try:
        value = json.loads((Path(run_dir) / "config.json").read_text(encoding="utf-8"))
        for key in keys:
            value = value[key]
        return value
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_resume_data(data: Path, dataset_dir: Path, run_dir: Path) -> None:
    """With ``--resume``, ``--data`` must be the run's source or its prepared dataset (else training
    would silently use the old recordings). Raises ``UsageError``."""
    known = {dataset_dir.resolve()}
    try:
        source = Manifest.load(dataset_dir).notes.get("source")
    except (SpeechStudioError, OSError, ValueError):
        source = None
    if source:
        known.add(Path(source).resolve())
    if data.resolve() not in known:
        was = source or dataset_dir
        raise UsageError(f"--data {data}: the run in {run_dir} was built from {was}; resume without --data, "
                         "or start a new run (another --out or --run-dir) for other recordings")


def _stored_dataset(run_dir: Path) -> Path | None:
    path = config_value(run_dir, "dataset", "path")
    return Path(path) if isinstance(path, str) else None


@contextlib.contextmanager
def run_lock(run_dir: Path):
    """Hold ``run_dir/.lock`` (an OS file lock, ``filelock``, released if the process dies) while a run builds,
    trains and saves; creates ``run_dir``. Raises ``RunError`` (not writable, or held by another training)."""
    run_dir = Path(run_dir)
    lock = FileLock(run_dir / ".lock", timeout=0)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except Timeout:
        raise RunError(f"{run_dir}: another training is using this run folder; wait for it to end "
                       "(or stop it), or give another --run-dir") from None
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot write in the run folder ({exc.strerror or exc})") from exc
    try:
        yield
    finally:
        lock.release()


# ----------------------------------------------------------------------------- dataset
def text_checker(voice) -> Callable[[str], str | None]:
    """``text_ok(text) -> None | str`` for ``build_dataset``: what the base voice's own front end
    (``VitsVoice.text_to_ids``) cannot say; such a clip is marked ``unsayable``."""

    def text_ok(text: str) -> str | None:
        voice.warnings.clear()
        error = None
        try:
            voice.text_to_ids(text)
        except SpeechStudioError as exc:
            error = str(exc)
        bad = [w for w in voice.warnings if "cannot say" in w]
        voice.warnings.clear()
        return "; ".join(bad + ([error] if error else [])) or None

    return text_ok


def prepare_dataset(p: VoicePlan, *, asr_check: bool = True, split_long: bool = False,
                    progress: Callable[[int, int, str], None] | None = None, speaker: str | None = None,
                    keep_mismatched: bool = False) -> str:
    """Build and check the dataset of ``p`` when it comes from raw input; return the report ('' when
    prepared). ``split_long`` cuts clips over 20 s at sentence ends; ``speaker`` picks one of a
    multi-speaker ``metadata.csv``; ``keep_mismatched`` trains on asr_mismatch clips. Raises ``DatasetError``."""
    if p.source is None:
        return "" if p.resume else format_report(report(Manifest.load(p.dataset_dir)))
    voice = load_base(p.base)
    transcribe = None
    if asr_check and voice.language.startswith("en"):
        try:
            transcribe = whisper_transcriber(language="en")
        except ModelNotFoundError:
            transcribe = None  # no Whisper installed: the report says the texts were not cross-checked
    manifest = build_dataset(p.source, p.dataset_dir, voice.sample_rate, language=voice.language.split("-")[0],
                             transcribe=transcribe, text_ok=text_checker(voice), progress=progress,
                             split_long=split_long, speaker=speaker, speaker_check=True,
                             keep_mismatched=keep_mismatched)
    text = format_report(report(manifest))
    if transcribe is None and asr_check:
        text += "\nnote: texts not cross-checked with Whisper (no Whisper model installed)"
    return text


# ----------------------------------------------------------------------------- train / save
def train(p: VoicePlan, control=None) -> Iterator[object]:
    """The trainer's events (``finetune.vits.events``) for plan ``p``."""
    return train_voice(p.run_dir, p.dataset_dir, p.base, p.config, resume=p.resume, control=control)


def save_trained_voice(run_dir: Path, name: str, base, which: str = "best", overwrite: bool = False,
                       match_pitch: bool | None = None, blend: float | None = None):
    """Save a run's ``which`` (``best`` | ``latest`` | ``step_N``, a row of ``finetune.trade``) checkpoint
    as store voice ``name`` with ``base``'s front end and license; ``blend`` (0-1) saves that checkpoint
    blended with the base (``finetune.blend``, WiSE-FT) instead. Returns the new ``VoiceRef``.

    The pitch of the recordings and the model is measured (``finetune.pitch_match``) into the training
    summary, with the checkpoint's judged row when there is one; the offset is stored as
    ``pitch_semitones`` (PSOLA at synthesis) from 1 semitone (``match_pitch`` None: the base voice kept,
    a checkpoint short of the speaker's pitch; ``pitch_match.AUTO_SHIFT_ST``), from 0.3 st (True) or
    never (False). Raises ``UsageError`` (name taken or bad, ``blend`` outside 0-1; before any loading),
    ``RunError`` (no such checkpoint), ``ExportError``."""
    check_clone_name(name, getattr(base, "name", str(base)), overwrite)
    if blend is None:
        model, info = load_trained_generator(run_dir, which)
        label = which
    else:
        if not 0.0 <= blend <= 1.0:
            raise UsageError(f"--blend {blend}: between 0 (the base voice) and 1 (the checkpoint)")
        model, info = blend_generator(Path(run_dir), blend, which)
        label = blend_name(blend, which)
    base_voice = load_base(base)
    facts = {"checkpoint": label, "step": int(getattr(info, "step", 0))}
    if label == "best":
        label = load_checkpoint_state(run_dir, "best").get("checkpoint") or f"step_{facts['step']}"
    with contextlib.suppress(RunError):  # a run without the clone judge: no table
        trade = load_trade(Path(run_dir))
        row = trade.row(label) or trade.row(f"step_{facts['step']}")
        if row is not None:
            facts["closeness"] = asdict(row)
    val = getattr(info, "val_mel_loss", None)
    if val is not None and val == val:  # not NaN (no validation clips)
        facts["val_mel_loss"] = round(float(val), 5)
    pitch = 0.0
    dataset = _stored_dataset(Path(run_dir))
    if dataset is not None and (dataset / "manifest.json").is_file():
        match = measure_pitch_match(model, base_voice, dataset, shift=match_pitch)
        facts["pitch"] = match.to_dict()
        pitch = match.semitones
    return save_clone(model.eval(), base_voice, base, name, run_dir=run_dir, training_summary=facts,
                      overwrite=overwrite, pitch_semitones=pitch)


def base_of_run(run_dir: Path):
    """The base ``VoiceRef`` a run was trained from (its ``config.json``). Raises ``RunError`` (no run
    there), ``ModelNotFoundError`` (the base voice is no longer installed)."""
    source = config_value(run_dir, "base", "source")
    if not isinstance(source, str):
        raise RunError(f"{run_dir}: not a voice training run (no readable config.json)")
    return checkpoint_base_ref(source) or resolve_voice(source, allow_download=False)
