"""Jobs of the Adapt recognition wizard (Qt-free): describe a CTC base, train, compare, register. Runs
live where ``finetune asr --out NAME`` puts them (:func:`run_dir_for`); a resumed run takes its dataset
from its ``config.json``."""
from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from safetensors import SafetensorError, safe_open

from speechstudio.asr.ctc_checkpoint import family_name
from speechstudio.asr.family import capabilities
from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer
from speechstudio.atomic import read_json_object
from speechstudio.audio.decode import load_audio
from speechstudio.errors import UsageError
from speechstudio.finetune.ctc import register_model, train_ctc
from speechstudio.finetune.ctc.checkpoint import export_best
from speechstudio.finetune.ctc.evaluate import score
from speechstudio.finetune.ctc.events import TrainControl
from speechstudio.finetune.ctc.model import resolve_base
from speechstudio.finetune.ctc.vocab import vocab_casing
from speechstudio.finetune.manifest import Manifest
from speechstudio.finetune.run import RunError, RunFolder
from speechstudio.finetune.voice_run import runs_dir
from speechstudio.hub import defaults
from speechstudio.hub.inventory import list_models
from speechstudio.hub.store import imported_dir, validate_name
from speechstudio.worker.finetune_jobs import RunInfo, TrainingJob, run_folders
from speechstudio.worker.jobs import Job
from speechstudio.worker.status import Status


# ----------------------------------------------------------------------------- base model
@dataclass(frozen=True)
class CTCBaseInfo:
    """A CTC base: ``spec``, ``path``, ``family``, ``model_type``, ``has_vocab``, ``vocab_size``, ``casing``,
    ``n_params`` (``params_exact`` False: from file size at 4 bytes each), ``sample_rate``."""

    spec: str
    path: Path
    family: str
    model_type: str
    has_vocab: bool
    vocab_size: int
    casing: str
    n_params: int
    params_exact: bool
    sample_rate: int

    def summary(self) -> str:
        """One paragraph for the user: family, vocabulary, size, rate."""
        size = (f"{self.n_params / 1e6:.1f} M parameters" if self.n_params >= 1e5 else
                f"{self.n_params:,} parameters") if self.n_params else "size unknown"
        if not self.params_exact and self.n_params:
            size = "about " + size
        vocab = (f"keeps its CTC vocabulary of {self.vocab_size} tokens ({self.casing} case)" if self.has_vocab else
                 "has no CTC head: a character vocabulary is built from your texts and a new head trained")
        return f"{self.family} ({self.model_type}), {size}, {self.sample_rate} Hz; {vocab}."


def _count_params(folder: Path) -> tuple[int, bool]:
    """Parameters in ``folder``: exact from the tensor shapes of its safetensors files (no weights
    read), else estimated from ``pytorch_model*.bin`` sizes."""
    total, found = 0, False
    for f in sorted(folder.glob("*.safetensors")):
        try:
            with safe_open(f, "np") as fh:
                total += sum(math.prod(fh.get_slice(k).get_shape()) for k in fh.keys())
        except (OSError, SafetensorError):
            continue
        found = True
    if found:
        return total, True
    size = sum(f.stat().st_size for f in folder.glob("pytorch_model*.bin"))
    return size // 4, False


def describe_ctc_base(spec: str) -> CTCBaseInfo:
    """Resolve ``spec`` with ``finetune.ctc.model.resolve_base`` and describe it from its small files.
    Raises ``UsageError``, ``ModelNotFoundError``."""
    spec = str(spec).strip()
    if not spec:
        raise UsageError("choose a base model")
    base = resolve_base(spec)
    vocab = read_json_object(base.path / "vocab.json") if base.has_vocab else {}
    rate = 16000
    with contextlib.suppress(ValueError, TypeError):
        rate = int(read_json_object(base.path / "preprocessor_config.json").get("sampling_rate", rate))
    n_params, exact = _count_params(base.path)
    return CTCBaseInfo(spec, base.path, family_name(base.model_type), base.model_type, base.has_vocab, len(vocab),
                       vocab_casing(vocab) if vocab else "", n_params, exact, rate)


def ctc_model_names() -> list[str]:
    """Installed models (``speechstudio models list``) that the CTC recogniser runs: the bases the
    wizard offers (store names, Hugging Face ids in the cache, package models)."""
    return [m.name for m in list_models(include_catalog=False) if m.installed and capabilities(m.engine).trainable]


# ----------------------------------------------------------------------------- runs
def run_dir_for(name: str) -> Path:
    """The run folder of model ``name``: ``speechstudio finetune asr --out NAME``'s default
    (``<data dir>/finetune/runs/NAME``)."""
    return runs_dir() / name


def list_adapt_runs() -> list[RunInfo]:
    """The CTC runs (``config.json`` with a dataset path and a vocabulary source; voice-cloning
    runs are left out) under the runs folder, newest first."""
    return [r for r in run_folders()
            if r.config is not None and isinstance(r.config.get("dataset"), str) and "vocab_source" in r.config]


# ----------------------------------------------------------------------------- training
class AdaptTrainJob(TrainingJob):
    """Fine-tune a CTC model (``finetune.ctc.train_ctc``) holding the run's lock; ``resume`` continues ``run_dir``.
    Yields the trainer's events; ``result``: the ``DoneEvent``; pause / stop as ``TrainingJob``."""

    def __init__(self, run_dir: Path, dataset_dir: Path | None, base: str | None, config, resume: bool = False) -> None:
        super().__init__(run_dir, TrainControl())
        self.dataset_dir = Path(dataset_dir) if dataset_dir is not None else None
        self.base, self.config, self.resume = base, config, resume

    title = "adapt {run_dir.name}"

    def _train(self, models) -> Iterator[object]:
        dataset = RunFolder(self.run_dir).ctc_dataset() if self.resume else self.dataset_dir
        yield Status("resuming the run …" if self.resume else "loading the base model …")
        yield from train_ctc(self.run_dir, dataset, None if self.resume else self.base, self.config,
                             resume=self.resume, control=self.control)


# ----------------------------------------------------------------------------- evaluation
@dataclass(frozen=True)
class Comparison:
    """Base vs adapted on held-out clips: WER / CER (jiwer after ``normalize_text``; None for a headless base),
    ``split``, ``n_clips``, ``rows`` ``(id, reference, base, adapted)``, best ``step`` / ``model_dir``, ``empty``."""

    base_wer: float | None
    base_cer: float | None
    wer: float
    cer: float
    split: str
    n_clips: int
    rows: tuple[tuple[str, str, str, str], ...]
    step: int
    model_dir: Path
    empty: int = 0


def _transcripts(recognizer, clips, dataset: Path, manifest, cancel) -> list[str] | None:
    out = []
    for c in clips:
        if cancel.is_set():
            return None
        audio = load_audio(manifest.path_of(c, dataset), recognizer.sample_rate)
        out.append(" ".join(s.text.strip() for s in recognizer.transcribe_blocks([audio])).strip())
    return out


class CompareJob(Job):
    """Export the run's best checkpoint, transcribe its held-out clips with base and adapted model
    through the CTC recogniser and score both; ``result``: a :class:`Comparison`."""

    def __init__(self, run_dir: Path, device: str = "auto", max_rows: int = 5) -> None:
        super().__init__()
        self.run_dir, self.device, self.max_rows = Path(run_dir), device, max_rows

    title = "evaluate {run_dir.name}"

    def run(self, models) -> Iterator[object]:
        run = RunFolder(self.run_dir)
        cfg = run.read_config()
        yield Status("exporting the best checkpoint …")
        model_dir = export_best(run)
        if model_dir is None:
            raise RunError(f"{self.run_dir}: no evaluated checkpoint yet (checkpoints/best.pt); train first")
        step = int(json.loads((self.run_dir / "model.json").read_text(encoding="utf-8")).get("step", 0))
        dataset = Path(cfg["dataset"])     # held out: the validation clips as the trainer split them, else training's
        manifest = Manifest.load(dataset)
        train, val = manifest.split(cfg.get("val_count"), seed=int(cfg.get("seed", 0)))
        clips, split = (val, "validation") if val else (train, "training")
        language = cfg.get("language", "en")
        refs = [c.text for c in clips]
        yield Status(f"transcribing {len(clips)} {split} clips with the adapted model …")
        adapted = _transcripts(Wav2Vec2Recognizer(model_dir, "adapted", device=self.device), clips, dataset, manifest,
                               self.cancel)
        if adapted is None:
            return
        base_hyps: list[str] | None = None
        if cfg.get("vocab_source") == "base":
            yield Status(f"transcribing them with the base model {cfg.get('base')} …")
            base_recognizer = Wav2Vec2Recognizer(Path(cfg["base_path"]), str(cfg.get("base")), device=self.device)
            base_hyps = _transcripts(base_recognizer, clips, dataset, manifest, self.cancel)
            if base_hyps is None:
                return
        wer, cer = score(refs, adapted, language)
        base_wer, base_cer = score(refs, base_hyps, language) if base_hyps is not None else (None, None)
        shown = base_hyps if base_hyps is not None else ["(no CTC head: cannot transcribe)"] * len(clips)
        rows = tuple((c.id, r, b, a) for c, r, b, a in zip(clips, refs, shown, adapted))[:self.max_rows]
        self.result = Comparison(base_wer, base_cer, wer, cer, split, len(clips), rows, step, model_dir,
                                 sum(1 for a in adapted if not a.strip()))


class RegisterJob(Job):
    """Register ``model_dir`` as ``name`` (``replace`` an existing one; ``use_for_dictation``);
    ``result``: the ``ResolvedModel``. Raises ``UsageError``."""

    def __init__(self, model_dir: Path, name: str, replace: bool = False, use_for_dictation: bool = False) -> None:
        super().__init__()
        self.model_dir, self.name, self.replace = Path(model_dir), name, replace
        self.use_for_dictation = use_for_dictation

    title = "register model {name}"

    def run(self, models) -> Iterator[object]:
        name = validate_name(self.name)
        if imported_dir(name) is not None and not self.replace:
            raise UsageError(f"a model named {name!r} already exists; choose another name or tick Replace")
        yield Status(f"adding {name} to the model store …")
        self.result = register_model(self.model_dir, name, replace=self.replace)
        if self.use_for_dictation:
            defaults.choose("dictation", self.result.model_id)
