"""The worker: a long-lived thread that owns loaded models (:class:`ModelCache`) and runs queued jobs.
Signals: ``job_started``, ``job_progress``, ``job_finished(job_id, status, result)`` (a failure carries an
:class:`~speechstudio.errors.ErrorLine`), ``busy_changed``; :meth:`Worker.cancel`."""
from __future__ import annotations

import gc
import itertools
import logging
import queue
import sys
import threading
import time
import traceback
import weakref

from PySide6.QtCore import QObject, Signal

from speechstudio.asr.cuda_graph import _CACHE_ATTR
from speechstudio.asr.load import load_model
from speechstudio.errors import ErrorLine, SpeechStudioError
from speechstudio.tts.voices import load_named
from speechstudio.worker.gc_guard import collect_on_gui_thread
from speechstudio.worker.status import Status  # noqa: F401 - re-exported (it used to live here)

#: Every worker alive (weakly): at exit, wait for the busy ones (:func:`wait_for_busy_workers`).
_LIVE: "weakref.WeakSet" = weakref.WeakSet()


#: Names of threads that do one finite thing (safe to wait for at exit).
ONE_SHOT_THREADS = ("speechstudio-onnx-open", "speechstudio-job-helper", "remember-voice")
log = logging.getLogger(__name__)
_ids = itertools.count(1)


def wait_for_busy_workers(timeout_s: float = 30.0) -> None:
    """Before exit, let workers inside a job finish their step: a daemon thread inside onnxruntime's
    set-up during teardown aborts the process (exit 134). Idle workers are not waited for."""
    end = time.monotonic() + timeout_s
    for w in list(_LIVE):
        w.wait_idle(max(0.0, end - time.monotonic()))
    for t in threading.enumerate():      # one-shot helpers: a Piper voice's ONNX session opening
        if t.name in ONE_SHOT_THREADS and t is not threading.current_thread():
            t.join(max(0.0, end - time.monotonic()))


def _cut_cycles(obj) -> None:
    """Let reference counting free an unused model at once: frozen objects are never cycle-collected, so the
    recogniser <-> window-runner cycle (:mod:`speechstudio.asr.cuda_graph`) is cut here, also for a
    ``LanguageRouter``'s recognisers. No ``gc.collect()``: it could finalise Qt objects off the GUI thread."""
    seen: set[int] = set()

    def cut(o, depth: int = 0) -> None:
        d = getattr(o, "__dict__", None)
        if d is None or id(o) in seen or depth > 2:
            return
        seen.add(id(o))
        d.pop(_CACHE_ATTR, None)
        for v in list(d.values()):
            if hasattr(v, "transcribe") or hasattr(v, "model"):
                cut(v, depth + 1)

    cut(obj)


class ModelCache:
    """Models loaded in the worker thread, reused across jobs. Only the worker touches it."""

    def __init__(self) -> None:
        self._asr_key = self._asr = self._voice_key = self._voice = self._detector_key = self._detector = None

    def asr(self, spec: str | None, device: str, precision: str):
        """The recogniser for ``(spec, device, precision)`` (dictation); loads it (replacing the
        previous one) only when it differs from the cached one. Returns ``(recognizer, message_or_None)``."""
        return self._slot("_asr", (spec or None, device, precision), lambda: load_model(
            spec, device=device, precision=precision, allow_download=False, progress=False))

    def detector(self, resolved, device: str, precision: str):
        """The multilingual Whisper (``resolved``: a ``ResolvedModel``) that picks dictation's model by the first
        words (:func:`speechstudio.asr.live.first_words_language`), kept beside the recogniser."""
        def load():
            model, message = load_model(str(resolved.path), device=device, precision=precision, allow_download=False,
                                        progress=False)
            model.model_id = resolved.model_id
            return model, message
        return self._slot("_detector", (str(resolved.path), device, precision), load)

    def has_asr(self, spec: str | None, device: str, precision: str) -> bool:
        return self._asr is not None and self._asr_key == (spec or None, device, precision)

    def recognizer(self, request):
        """``(recognizer, message or None)`` for a ``TranscriptionRequest`` (model, device, precision,
        language mode), in :meth:`asr`'s slot."""
        return self._slot("_asr", ("recognizer",) + request.model_key(),
                          lambda: request.replace(allow_download=False).load())

    def has_recognizer(self, request) -> bool:
        return self._asr is not None and self._asr_key == ("recognizer",) + request.model_key()

    def _slot(self, slot: str, key: tuple, load):
        """``(model, message or None)``: the model cached in ``slot`` (``"_asr"``, ``"_voice"``) when ``key``
        matches, else ``load()``'s after freeing the old one (peak memory stays one model per slot)."""
        if key == getattr(self, slot + "_key") and getattr(self, slot) is not None:
            return getattr(self, slot), None
        old = getattr(self, slot)           # forgotten and freed before its replacement loads
        if old is not None:
            setattr(self, slot, None)
            setattr(self, slot + "_key", None)
            _cut_cycles(old)
            del old                          # the last reference: freed here, before the next load
            torch = sys.modules.get("torch")
            if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
                torch.cuda.empty_cache()
        model, message = load()
        setattr(self, slot, model)
        setattr(self, slot + "_key", key)
        gc.freeze()                          # a full collection in the GUI thread then skips the models
        return model, message

    def voice(self, spec: str | None, device: str = "auto"):
        """The loaded :class:`~speechstudio.tts.vits.VitsVoice` for ``spec`` (name/path/None=default).
        Returns ``(voice, message_or_None)``."""
        def load():
            ref, voice = load_named(spec, device, allow_download=False)
            return voice, f"voice {ref.name} on {voice.device} ({voice.dtype}); {ref.reason}"

        return self._slot("_voice", (spec or None, device), load)


class Worker(QObject):
    """One worker thread, one job at a time, in submission order."""

    job_started = Signal(int, str)
    job_progress = Signal(int, object)
    job_finished = Signal(int, str, object)
    busy_changed = Signal(bool)

    queue_class = queue.Queue       # tests substitute one that pauses between dequeue and start

    def __init__(self, name: str = "worker", parent=None) -> None:
        super().__init__(parent)
        self.name = name
        self.models = ModelCache()
        self._queue: queue.Queue = self.queue_class()
        self._current = None
        self._lock = threading.Lock()
        self._dropped: set[int] = set()
        self._submitted = 0          # jobs submitted so far; each job remembers its number
        self._cancelled_upto = 0     # cancel_all: every job numbered up to this is cancelled
        collect_on_gui_thread()      # cyclic garbage (Qt objects in it) is freed in the GUI thread only
        self._thread = threading.Thread(target=self._loop, name=f"speechstudio-{name}", daemon=True)
        self._thread.start()
        _LIVE.add(self)

    # ---------------------------------------------------------------- GUI-thread API
    def submit(self, job) -> int:
        """Queue ``job``; returns its id (also ``job.id``)."""
        if getattr(job, "id", None) is None:
            job.id = next(_ids)
        with self._lock:
            self._submitted += 1
            job._worker_seq = self._submitted
        self._queue.put(job)
        return job.id

    def cancel(self, job_id: int | None = None) -> None:
        """Cancel the running job (``job_id`` None or its id) or drop a queued one."""
        with self._lock:
            cur = self._current
            if cur is not None and (job_id is None or cur.id == job_id):
                cur.cancel.set()
                return
            if job_id is not None:
                self._dropped.add(job_id)

    def cancel_all(self) -> None:
        """Drop every queued job and cancel the running one, including one just taken but not started."""
        with self._lock:
            self._cancelled_upto = self._submitted
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                self.job_finished.emit(job.id, "cancelled", "cancelled before it started")
        self.cancel()

    @property
    def busy(self) -> bool:
        return self._current is not None or not self._queue.empty()

    def wait_idle(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds while a job runs (after :meth:`shutdown` cancelled it, its
        thread finishes the step it is in: a model still loading cannot be interrupted)."""
        if self._current is not None and self._thread.is_alive():
            self._thread.join(timeout)

    def shutdown(self, timeout: float = 5.0) -> None:
        """Cancel everything and stop the thread (waits up to ``timeout`` seconds)."""
        self.cancel_all()
        self._queue.put(None)
        self._thread.join(timeout)

    # ---------------------------------------------------------------- worker thread
    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            with self._lock:
                if job.id in self._dropped or getattr(job, "_worker_seq", self._submitted + 1) <= self._cancelled_upto:
                    self._dropped.discard(job.id)
                    self.job_finished.emit(job.id, "cancelled", "cancelled before it started")
                    continue
                self._current = job
            self.busy_changed.emit(True)
            self.job_started.emit(job.id, job.describe())
            status, result = "done", None
            try:
                for payload in job.run(self.models):
                    self.job_progress.emit(job.id, payload)
                result = job.result
                if job.cancel.is_set():
                    status, result = "cancelled", job.result or "cancelled"
            except SpeechStudioError as e:
                status, result = "failed", ErrorLine.of(e, str(e))
            except MemoryError as e:
                status, result = "failed", ErrorLine.of(e, "out of memory")
            except Exception as e:  # a bug in a job must not kill the worker
                log.warning("job %s failed:\n%s", job.describe(), traceback.format_exc())
                first = str(e).splitlines()[0] if str(e) else ""
                status, result = "failed", ErrorLine.of(e, f"unexpected error: {type(e).__name__}: {first}")
            with self._lock:
                self._current = None
            self.job_finished.emit(job.id, status, result)
            self.busy_changed.emit(not self._queue.empty())
