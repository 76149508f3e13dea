"""Run a Piper voice's own ONNX graph with onnxruntime: the light CPU engine for Piper voices.

Cold start is what a user feels on ``speechstudio speak "Hi."``: importing PyTorch and
transformers and mapping the ONNX weights onto a ``VitsModel`` took ~8 of the 9 s that one short
sentence cost (issue 14 item 3). onnxruntime is the runtime Piper itself uses (rhasspy/piper
``src/python_run/piper/voice.py``, OHF-Voice/piper1-gpl ``src/piper/voice.py``: one
``InferenceSession`` with default options, inputs ``input`` int64 ``(1, T)``, ``input_lengths``
int64 ``(1,)``, ``scales`` float32 ``[noise_scale, length_scale, noise_w]`` and ``sid`` int64
``(1,)`` for multi-speaker voices; output float32 ``(1, 1, 1, n_samples)`` in [-1, 1]). It imports
in ~0.3 s instead of several seconds, so ``load_voice`` uses it for Piper voices on CPU
(``engine="auto"``) and keeps the PyTorch model for what needs it (GPU, fine-tuning, a fixed
``seed``: the graph's two ``RandomNormalLike`` draws have no seed input).

The session is created on a background thread as soon as the voice is loaded, so text splitting,
number normalisation and espeak-ng run while onnxruntime reads the 60 MB graph. The graph
onnxruntime optimised at first use is cached (``<data dir>/cache/voices/NAME-KEY.onnx``, written
atomically; ``SessionOptions.optimized_model_filepath``) and later sessions load it with graph
optimisation off: 0.18 s instead of 0.69 s to open the joe voice (same outputs, bit for bit).
The key covers the voice file (path, size, mtime), the onnxruntime version and the CPU, because
onnxruntime's fully optimised graphs may use the CPU's own instructions (NCHWc layouts).
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from speechstudio.tts.piper_import import PiperVoiceError

__all__ = ["PIPER_HOP_LENGTH", "OnnxPiperRunner", "cpu_threads", "onnxruntime_available", "optimized_cache_path"]

#: Audio samples per latent frame of every Piper VITS voice (rhasspy/piper ``piper_train``
#: ``vits/config.py``: ``hop_length`` 256 for x_low, low, medium and high).
PIPER_HOP_LENGTH = 256


def onnxruntime_available() -> bool:
    """True when ``onnxruntime`` can be imported (checked without importing it)."""
    import importlib.util

    return importlib.util.find_spec("onnxruntime") is not None


def _cpu_id() -> str:
    """The CPU model and feature flags (Linux ``/proc/cpuinfo``), else ``platform.processor()``."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            lines = [ln for ln in fh.read(65536).splitlines() if ln.startswith(("model name", "flags"))][:2]
        return "|".join(lines)
    except OSError:
        return platform.processor() + platform.machine()


def optimized_cache_path(onnx_path: Path, ort_version: str) -> Path | None:
    """Where the optimised graph of ``onnx_path`` is cached, or None when the voice file is unreadable.

    ``<data dir>/cache/voices/<stem>-<sha1 of path, size, mtime, onnxruntime version, CPU>.onnx``.
    """
    import hashlib

    from speechstudio.hub.paths import data_dir

    try:
        st = onnx_path.stat()
    except OSError:
        return None
    key = f"{onnx_path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{ort_version}|{_cpu_id()}"
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]
    stem = onnx_path.name.removesuffix(".onnx")
    return data_dir() / "cache" / "voices" / f"{stem.replace('-', '_')}-{digest}.onnx"


_ARENA_LOCK = threading.Lock()
_ARENA: list[bool] = []


def _shared_arena(ort) -> bool:
    """Register one CPU arena for all voice sessions of the process (True when available).

    Sessions with ``session.use_env_allocators`` share it, so the first sentence's session and the
    workers' single-threaded session reuse each other's freed buffers, and it grows by what is
    asked (``arena_extend_strategy`` 1, kSameAsRequested) instead of doubling: 20 sentences peaked
    at 393 MB instead of 466 MB (``bench/bench_tts_cold.py``; onnxruntime ``OrtArenaCfg``).
    """
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
    """At most ``capacity`` phoneme ids synthesized at once by a voice's sessions together.

    Memory of one run grows with its length (decoder activations, ~25 MB per second of audio):
    with one worker per core, a long text would otherwise run one maximal piece per core at once.
    A run longer than ``capacity`` waits until it runs alone.
    """

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


def cpu_threads() -> int:
    """CPUs this process may run on (``sched_getaffinity``, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class OnnxPiperRunner:
    """One onnxruntime session for a Piper ``.onnx`` voice, opened on a background thread.

    ``threads``: onnxruntime intra-op threads (``None``: onnxruntime's default, one per core, as
    Piper). ``run`` may be called from several threads at once (``InferenceSession.run`` is
    thread-safe). Errors opening the file surface as ``PiperVoiceError`` on first use.

    Runs of the voice's sessions together hold at most two maximal pieces of phoneme ids at once
    (``_InFlight``), so peak memory does not grow with the number of cores.

    ``single_threaded()``: a second runner of the same voice with one intra-op thread, for sentence
    workers that each synthesize a sentence at once (``stream.stream_speech``): on 2 cores, 20
    sentences on 2 workers took 0.62-0.65 of the time one session with 2 threads took for them one
    after the other (in-process, the joe voice, busy machine), since onnxruntime splits the small
    convolutions of one sentence poorly over threads.
    """

    hop_length = PIPER_HOP_LENGTH

    def __init__(self, onnx_path: str | os.PathLike, threads: int | None = None, in_flight: _InFlight | None = None):
        from speechstudio.tts.phonemize import MAX_PHONEMES

        self.onnx_path = Path(onnx_path)
        self.threads = threads
        # two maximal pieces (phonemize.split_ids) at once, on any number of cores
        self._in_flight = in_flight or _InFlight(2 * (2 * MAX_PHONEMES + 3))
        self._session = None
        self._error: BaseException | None = None
        self._has_sid = False
        self._single: OnnxPiperRunner | None = None
        self._single_lock = threading.Lock()
        # Not a daemon: the interpreter waits for it at exit. A daemon thread still inside
        # onnxruntime's session set-up while Python finalizes is killed by a forced unwind through
        # C++ code ("terminate called without an active exception", SIGABRT, exit 134): an error
        # right after a voice was loaded (an unwritable --out) aborted 4 runs in 10 (issue 29, 3).
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
        opts = self._options(ort, True)
        tmp = None
        if cached is not None:
            try:
                cached.parent.mkdir(parents=True, exist_ok=True)
                tmp = cached.with_name(f".{cached.name}.{os.getpid()}.{threading.get_ident()}.part")
                opts.optimized_model_filepath = str(tmp)
                opts.log_severity_level = 3  # not the "hardware specific" warning: the cache is per CPU
            except OSError:
                tmp = None
        session = ort.InferenceSession(str(self.onnx_path), sess_options=opts, providers=providers)
        if tmp is not None and tmp.is_file():
            try:
                os.replace(tmp, cached)
                for old in cached.parent.glob(f"{cached.name.rsplit('-', 1)[0]}-*.onnx"):
                    if old != cached:
                        old.unlink(missing_ok=True)  # an older key of the same voice
            except OSError:
                tmp.unlink(missing_ok=True)
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
        """Audio for one id sequence: ``np.ndarray[float32]`` shape ``(n_samples,)``, in [-1, 1].

        ``n_samples`` is a multiple of ``hop_length``. Raises ``PiperVoiceError`` when the graph
        refuses the ids (an id beyond the voice's symbol table: a mismatched ``.onnx.json``).
        """
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
