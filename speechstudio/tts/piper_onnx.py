"""Run a Piper voice's own ONNX graph with onnxruntime (the CPU runtime), as Piper's ``voice.py`` does:
``input`` int64 ``(1, T)``, ``input_lengths``, ``scales`` float32 ``[noise_scale, length_scale, noise_w]``,
``sid``; output float32 ``(1, 1, 1, n_samples)``. Unseeded (a seed uses the PyTorch model). docs/tts.md."""
from __future__ import annotations

import hashlib
import os
import platform
import threading
from pathlib import Path

import numpy as np

from speechstudio.atomic import atomic_path
from speechstudio.hub.paths import data_dir
from speechstudio.tts.phonemize import MAX_PHONEMES
from speechstudio.tts.piper_import import PiperVoiceError

#: Audio samples per latent frame of every Piper VITS voice (rhasspy/piper ``piper_train``
#: ``vits/config.py``: ``hop_length`` 256 for x_low, low, medium and high).
PIPER_HOP_LENGTH = 256


def _cpu_id() -> str:
    """The CPU model and feature flags (Linux ``/proc/cpuinfo``), else ``platform.processor()``."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            lines = [ln for ln in fh.read(65536).splitlines() if ln.startswith(("model name", "flags"))][:2]
        return "|".join(lines)
    except OSError:
        return platform.processor() + platform.machine()


def optimized_cache_path(onnx_path: Path, ort_version: str) -> Path | None:
    """Cache path of ``onnx_path``'s optimised graph, ``<data dir>/cache/voices/<stem>-<sha1 of path,
    size, mtime, onnxruntime version, CPU>.onnx``; None when the voice file is unreadable."""
    try:
        st = onnx_path.stat()
    except OSError:
        return None
    key = f"{onnx_path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{ort_version}|{_cpu_id()}"
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]
    return _cache_stem(onnx_path).with_name(f"{_cache_stem(onnx_path).name}-{digest}.onnx")


def _cache_stem(onnx_path: Path) -> Path:
    return data_dir() / "cache" / "voices" / onnx_path.name.removesuffix(".onnx").replace("-", "_")


def drop_optimized(onnx_path: Path, keep: Path | None = None) -> None:
    """Delete the cached optimised graphs (each about the voice's size) of a voice named like ``onnx_path``, all but
    ``keep``: a removed voice leaves none behind (one of that file name elsewhere rebuilds its own at next use)."""
    stem = _cache_stem(onnx_path)
    for cached in stem.parent.glob(f"{stem.name}-*.onnx"):
        if cached != keep:
            cached.unlink(missing_ok=True)


_ARENA_LOCK = threading.Lock()
_ARENA: list[bool] = []


def _shared_arena(ort) -> bool:
    """Register one CPU arena (grows by what is asked) shared by all voice sessions with
    ``session.use_env_allocators``; True when available (onnxruntime ``OrtArenaCfg``)."""
    with _ARENA_LOCK:
        if not _ARENA:
            try:
                info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
                ort.create_and_register_allocator(info, ort.OrtArenaCfg(0, 1, -1, -1))
                _ARENA.append(True)
            except Exception:  # noqa: BLE001 - an onnxruntime without shared allocators: own arenas
                _ARENA.append(False)
        return _ARENA[0]


class _InFlight:
    """At most ``capacity`` phoneme ids synthesized at once by a voice's sessions together (memory grows
    with run length); a longer run waits to run alone."""

    def __init__(self, capacity: int):
        self.capacity, self.used, self.cond = capacity, 0, threading.Condition()

    def take(self, n: int) -> int:
        """Wait until ``n`` ids (at most ``capacity``) fit; returns what was taken, for ``give``."""
        n = min(n, self.capacity)
        with self.cond:
            self.cond.wait_for(lambda: self.used + n <= self.capacity)
            self.used += n
        return n

    def give(self, n: int) -> None:
        with self.cond:
            self.used -= n
            self.cond.notify_all()


class OnnxPiperRunner:
    """One onnxruntime session for a Piper voice, opened in the background; ``run`` is thread-safe.
    ``threads``: intra-op threads; ``single_threaded()``: a one-thread runner for sentence workers.
    Open errors surface as ``PiperVoiceError`` on first use."""

    hop_length = PIPER_HOP_LENGTH

    def __init__(self, onnx_path: str | os.PathLike, threads: int | None = None, in_flight: _InFlight | None = None):
        self.onnx_path = Path(onnx_path)
        self.threads = threads
        # two maximal pieces (phonemize.split_ids) at once, on any number of cores
        self._in_flight = in_flight or _InFlight(2 * (2 * MAX_PHONEMES + 3))
        self._session = None
        self._error: BaseException | None = None
        self._has_sid = False
        self._single: OnnxPiperRunner | None = None
        self._single_lock = threading.Lock()
        # Not a daemon: one still inside onnxruntime's set-up at interpreter exit aborts (SIGABRT).
        self._thread = threading.Thread(target=self._open, name="speechstudio-onnx-open")
        self._thread.start()

    def _open(self) -> None:
        try:
            import onnxruntime as ort

            session = self._cached_session(ort)
            inputs = {i.name for i in session.get_inputs()}
            if not {"input", "input_lengths", "scales"} <= inputs:
                raise PiperVoiceError(f"{self.onnx_path}: not a Piper VITS voice (graph inputs {sorted(inputs)}, "
                                      "expected input, input_lengths, scales)")
            self._has_sid = "sid" in inputs
            self._session = session
        except PiperVoiceError as exc:
            self._error = exc
        except Exception as exc:  # noqa: BLE001 - onnxruntime's Fail / InvalidProtobuf / ...: a broken file
            self._error = PiperVoiceError(f"{self.onnx_path}: not a readable ONNX voice ({str(exc).splitlines()[0][:160]})")

    def _options(self, ort, optimize: bool):
        opts = ort.SessionOptions()
        if self.threads:
            opts.intra_op_num_threads = int(self.threads)
        if _shared_arena(ort):
            opts.add_session_config_entry("session.use_env_allocators", "1")
        if not optimize:
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        return opts

    def _cached_session(self, ort):
        """A session from the cached optimised graph, else from the voice (writing the cache)."""
        cached = optimized_cache_path(self.onnx_path, ort.__version__)
        providers = ["CPUExecutionProvider"]
        if cached is not None and cached.is_file():
            try:
                return ort.InferenceSession(str(cached), sess_options=self._options(ort, False), providers=providers)
            except Exception:  # noqa: BLE001 - a cache from elsewhere or damaged: rebuild it below
                cached.unlink(missing_ok=True)
        session = None
        if cached is not None:
            try:
                with atomic_path(cached) as tmp:
                    opts = self._options(ort, True)
                    opts.optimized_model_filepath = str(tmp)
                    opts.log_severity_level = 3  # not the "hardware specific" warning: the cache is per CPU
                    session = ort.InferenceSession(str(self.onnx_path), sess_options=opts, providers=providers)
                    if not tmp.stat().st_size:
                        raise OSError("onnxruntime wrote no optimised graph")
                drop_optimized(self.onnx_path, keep=cached)  # older keys of the same voice
            except OSError:
                pass  # no cache (a read-only folder): the session runs all the same
        if session is None:
            session = ort.InferenceSession(str(self.onnx_path), sess_options=self._options(ort, True),
                                           providers=providers)
        return session

    def single_threaded(self) -> OnnxPiperRunner:
        """The same voice with ``threads=1`` (made once, opening in the background at first call)."""
        if self.threads == 1:
            return self
        with self._single_lock:
            if self._single is None:
                self._single = OnnxPiperRunner(self.onnx_path, threads=1, in_flight=self._in_flight)
            return self._single

    @property
    def session(self):
        """The ``onnxruntime.InferenceSession`` (waits for the background open)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._session

    def run(self, ids: list[int], speaker_id: int | None, noise_scale: float, length_scale: float,
            noise_w: float) -> np.ndarray:
        """Audio for one id sequence: ``np.ndarray[float32]`` ``(n_samples,)`` in [-1, 1], a multiple of
        ``hop_length``. Raises ``PiperVoiceError`` for an id beyond the voice's symbol table."""
        session = self.session
        feeds = {
            "input": np.asarray([ids], dtype=np.int64),
            "input_lengths": np.asarray([len(ids)], dtype=np.int64),
            "scales": np.asarray([noise_scale, length_scale, noise_w], dtype=np.float32),
        }
        if self._has_sid:
            feeds["sid"] = np.asarray([int(speaker_id or 0)], dtype=np.int64)
        taken = self._in_flight.take(int(len(ids) * max(1.0, length_scale)))  # slower speech: more audio
        try:
            audio = session.run(None, feeds)[0]
        except Exception as exc:  # onnxruntime raises its own RuntimeError subclasses
            raise PiperVoiceError(f"{self.onnx_path}: onnxruntime failed on this sentence "
                                  f"({str(exc).splitlines()[0][:160]})") from exc
        finally:
            self._in_flight.give(taken)
        return np.ascontiguousarray(audio.reshape(-1), dtype=np.float32)
