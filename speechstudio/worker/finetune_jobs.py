"""Jobs of the voice-cloning wizard (Qt-free): check a dataset, fine-tune, save, export; each adapts a
``speechstudio.finetune`` call to the worker. Runs live in ``<data dir>/finetune/runs/NAME``, shared with the CLI."""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from speechstudio.errors import ModelNotFoundError
from speechstudio.finetune.build import build_dataset
from speechstudio.finetune.check import whisper_transcriber
from speechstudio.finetune.clone_store import export_voice
from speechstudio.finetune.leftovers import trim_finished
from speechstudio.finetune.run import RunFolder
from speechstudio.finetune.vits.trainer import TrainControl, train_voice
from speechstudio.finetune.voice_run import (config_value, finetune_dir, run_lock, runs_dir, save_trained_voice,
                                             text_checker, train_config)
from speechstudio.worker.jobs import CancelEvent, Cancelled, Job
from speechstudio.worker.status import Status


# ----------------------------------------------------------------------------- folders
def datasets_dir() -> Path:
    """``<data dir>/finetune/datasets``: datasets checked in the wizard (``manifest.json`` + ``clips/``)."""
    return finetune_dir() / "datasets"


def recordings_dir() -> Path:
    """``<data dir>/finetune/recordings``: takes recorded in the wizard (LJSpeech layout)."""
    return finetune_dir() / "recordings"


# ----------------------------------------------------------------------------- runs
@dataclass(frozen=True)
class RunInfo:
    """A run folder: ``name``, ``path``, whether it holds ``checkpoints/latest.pt`` to resume from
    (layout: ``speechstudio.finetune.run``) and its ``config`` (``config.json``; ``None``: not started)."""

    name: str
    path: Path
    resumable: bool
    config: dict | None = None


def run_folders() -> Iterator[RunInfo]:
    """Each run folder under :func:`runs_dir`, newest first; its ``config`` is ``None`` when the run has not
    started yet (no or unreadable ``config.json``)."""
    root = runs_dir()
    if not root.is_dir():
        return
    for d in sorted((p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")),
                    key=lambda p: p.stat().st_mtime, reverse=True):
        cfg = config_value(d)
        yield RunInfo(d.name, d, (d / "checkpoints" / "latest.pt").is_file(), cfg if isinstance(cfg, dict) else None)


def list_runs() -> list[RunInfo]:
    """Voice-cloning run folders under :func:`runs_dir`, newest first (empty when there are none).
    Recognition (CTC) runs share the folder and are left out (``adapt_jobs.list_adapt_runs``)."""
    return [r for r in run_folders() if r.config is None or r.config.get("trainer") == "vits"]


# ----------------------------------------------------------------------------- helpers
def run_with_progress(fn: Callable, cancel: threading.Event) -> Iterator[object]:
    """Run ``fn(report)`` in a helper thread, yielding each ``report(item)``; returns ``fn``'s result, re-raises its
    exceptions. With ``cancel`` set the next ``report`` raises inside ``fn`` and this returns None."""
    q: queue.Queue = queue.Queue()
    box: dict = {}

    def report(item) -> None:
        if cancel.is_set():
            raise Cancelled
        q.put(("item", item))

    def target() -> None:
        try:
            box["result"] = fn(report)
        except Cancelled:
            box["cancelled"] = True
        except BaseException as e:  # noqa: BLE001 - handed to the job's thread
            box["error"] = e
        q.put(("end", None))

    t = threading.Thread(target=target, name="speechstudio-job-helper", daemon=True)
    t.start()
    for _kind, item in iter(q.get, ("end", None)):
        yield item
    t.join()
    if "error" in box:
        raise box["error"]
    return box.get("result")


# ----------------------------------------------------------------------------- dataset
@dataclass(frozen=True)
class DatasetProgress:
    """``done`` of ``total`` inputs handled; ``message`` names the current one."""

    done: int
    total: int
    message: str


_TRANSCRIBERS: dict = {}  # one Whisper transcriber, reused by the next check (worker thread only)


class BuildDatasetJob(Job):
    """Build and check a dataset into ``out_dir`` at ``sample_rate`` Hz (``finetune.build``); ``asr``:
    Whisper cross-check. Yields ``Status`` / ``DatasetProgress``; ``result``: the ``Manifest``."""

    def __init__(self, source: Path, out_dir: Path, sample_rate: int, *, base=None, language: str = "en",
                 asr: bool = True, asr_model: str | None = None, device: str = "auto", **options) -> None:
        super().__init__()
        self.source, self.out_dir, self.sample_rate = Path(source), Path(out_dir), int(sample_rate)
        self.base, self.language, self.asr, self.asr_model, self.device = base, language, asr, asr_model, device
        self.options = options
        self.asr_skipped = ""  # why the cross-check did not run (no Whisper model for the language)

    title = "check dataset {source.name}"

    def run(self, models) -> Iterator[object]:
        import torch

        # importing silero_vad calls torch.set_num_threads(1) process-wide (silero-vad 6, silero_vad/model.py):
        # the thread count is put back when the check ends
        threads = torch.get_num_threads()
        try:
            self.result = yield from self._run(models)
        finally:
            torch.set_num_threads(threads)

    def _run(self, models) -> Iterator[object]:
        text_ok = None
        if self.base is not None:
            yield Status(f"loading the base voice {self.base.name} to check what it can say ...")
            voice, _msg = models.voice(self.base.location, "cpu")
            text_ok = text_checker(voice)
            self.language = (voice.language or self.language).split("-")[0]
        transcribe = None
        if self.asr:
            yield Status("loading the speech recogniser for the text cross-check ...")
            try:
                key = (self.asr_model, self.language, self.device)      # kept between checks (built in ~1 s)
                if key not in _TRANSCRIBERS:
                    _TRANSCRIBERS.clear()
                    _TRANSCRIBERS[key] = whisper_transcriber(self.asr_model, self.language,
                                                             device="cpu" if self.device == "auto" else self.device)
                transcribe = _TRANSCRIBERS[key]      # transcribe(audio16k) -> text (check.whisper_transcriber)
            except ModelNotFoundError as exc:
                self.asr_skipped = f"texts not cross-checked with speech recognition: {exc}"
                yield Status(self.asr_skipped)
        yield Status(f"checking {self.source} ...")

        def work(report):
            def progress(done, total, message=""):
                report(DatasetProgress(int(done), int(total), str(message)))

            return build_dataset(self.source, self.out_dir, self.sample_rate, language=self.language,
                                 transcribe=transcribe, text_ok=text_ok, progress=progress, **self.options)

        return (yield from run_with_progress(work, self.cancel))


# ----------------------------------------------------------------------------- training
class TrainingJob(Job):
    """A trainer run holding the run folder's lock; :meth:`pause`, :meth:`resume_training`, :meth:`stop` from any
    thread (stop and cancel save a resumable checkpoint, ending with ``DoneEvent(reason="stopped")``). Subclasses
    yield from :meth:`_train`; ``result``: the ``DoneEvent`` or None."""

    def __init__(self, run_dir: Path, control) -> None:
        super().__init__()
        self.run_dir, self.control = Path(run_dir), control
        self.cancel = CancelEvent(self.stop)     # the worker's cancel ends training the same way Stop does

    def pause(self) -> None:
        self.control.pause.set()

    def resume_training(self) -> None:
        self.control.pause.clear()

    def stop(self) -> None:
        self.control.stop.set()
        self.control.pause.clear()

    @property
    def paused(self) -> bool:
        return self.control.pause.is_set()

    @property
    def stopping(self) -> bool:
        return self.control.stop.is_set()

    def _prepare(self) -> None:
        """Work before the run folder is locked (default: none)."""

    def _train(self, models) -> Iterator[object]:  # pragma: no cover - interface
        raise NotImplementedError

    def run(self, models) -> Iterator[object]:
        self._prepare()
        with run_lock(self.run_dir):
            for ev in self._train(models):
                if type(ev).__name__ == "DoneEvent":
                    self.result = ev
                yield ev


class FineTuneJob(TrainingJob):
    """Fine-tune a VITS voice (``finetune.vits.trainer.train_voice``), yielding the trainer's events;
    ``result``: the ``DoneEvent`` or None."""

    def __init__(self, run_dir: Path, dataset_dir: Path, base, config=None, resume: bool = False, *,
                 preset: str = "standard", overrides: dict | None = None) -> None:
        """``config``: a ``TrainConfig``, or None to build it in the worker from ``preset`` and
        ``overrides`` (resolving ``device="auto"`` imports torch, too slow for the GUI thread)."""
        super().__init__(run_dir, TrainControl())
        self.dataset_dir, self.base, self.config = Path(dataset_dir), base, config
        self.resume, self.preset, self.overrides = resume, preset, dict(overrides or {})

    title = "fine-tune {run_dir.name}"

    def _prepare(self) -> None:
        if self.config is None:
            self.config = train_config(self.preset, **self.overrides)

    def _train(self, models) -> Iterator[object]:
        return train_voice(self.run_dir, self.dataset_dir, self.base, self.config, resume=self.resume,
                           control=self.control)


# ----------------------------------------------------------------------------- save / export
class SaveCloneJob(Job):
    """Save a run's checkpoint ``which`` (None: best, or latest) blended ``blend`` from the base as store
    voice ``name``; ``result``: its ``VoiceRef``. A ``finished`` run keeps only best and judged checkpoints."""

    def __init__(self, run_dir: Path, name: str, base, overwrite: bool = False, finished: bool = True,
                 which: str | None = None, blend: float | None = None) -> None:
        super().__init__()
        self.run_dir, self.name, self.base, self.overwrite = Path(run_dir), name, base, overwrite
        self.finished, self.which, self.blend = finished, which, blend
        self.freed = 0

    title = "save voice {name}"

    def run(self, models) -> Iterator[object]:
        folder = RunFolder(self.run_dir)
        which = self.which or ("latest" if (not folder.checkpoint_path("best").is_file()
                                            and folder.checkpoint_path("latest").is_file()) else "best")
        yield Status(f"saving voice {self.name} ...")
        self.result = save_trained_voice(self.run_dir, self.name, self.base, which, self.overwrite, blend=self.blend)
        if self.finished:
            self.freed = trim_finished(self.run_dir)


class ExportJob(Job):
    """Export a stored voice as a Piper voice: ``out_dir/NAME.onnx`` + ``NAME.onnx.json``
    (``speechstudio.finetune.clone_store.export_voice``); ``result``: the ``.onnx`` path."""

    def __init__(self, voice: str, out_dir: Path) -> None:
        super().__init__()
        self.voice, self.out_dir = voice, Path(out_dir)

    title = "export {voice}"

    def run(self, models) -> Iterator[object]:
        yield Status(f"exporting {self.voice} to {self.out_dir} ...")
        onnx_path, _json_path = export_voice(self.voice, self.out_dir)
        self.result = onnx_path
