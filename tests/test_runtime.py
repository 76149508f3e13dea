"""OpenMP waiting policy set before torch loads; freed C heap memory given back; a background thread's
priority lowered (speechstudio/runtime.py)."""
import os
import subprocess
import sys

import threading

from speechstudio.runtime import GOMP_SPIN_COUNT, configure_openmp, lower_thread_priority


def test_sets_a_short_spin_count():
    env = {}
    assert configure_openmp(env) == f"GOMP_SPINCOUNT={GOMP_SPIN_COUNT}"
    assert env == {"GOMP_SPINCOUNT": "10000"}


def test_user_policy_wins():
    env = {"OMP_WAIT_POLICY": "PASSIVE"}
    assert configure_openmp(env) == "OMP_WAIT_POLICY=PASSIVE (user)"
    assert env == {"OMP_WAIT_POLICY": "PASSIVE"}
    env = {"GOMP_SPINCOUNT": "0"}
    assert configure_openmp(env) == "GOMP_SPINCOUNT=0 (user)" and env == {"GOMP_SPINCOUNT": "0"}


def test_cli_sets_it_before_torch_loads():
    """`speechstudio --help` path: main() runs configure_openmp before any torch import."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    code = ("import os, sys; from speechstudio.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('torch' in sys.modules, os.environ.get('GOMP_SPINCOUNT'), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.stderr.strip().splitlines()[-1] == "False 10000"


def test_trim_heap_gives_freed_heap_memory_back():
    """200 MB in 1 KB blocks freed behind a block still held (glibc cannot shrink the heap past it) stay
    in the process until the heap is trimmed (run in a child: a clean heap)."""
    code = ("import ctypes\nfrom speechstudio.runtime import trim_heap\n"
            "libc = ctypes.CDLL(None); libc.malloc.restype = ctypes.c_void_p; libc.free.argtypes = [ctypes.c_void_p]\n"
            "rss = lambda: int(next(l for l in open('/proc/self/status') if l.startswith('VmRSS')).split()[1]) // 1024\n"
            "blocks = [libc.malloc(1024) for _ in range(200_000)]\n"
            "for b in blocks: ctypes.memset(b, 1, 1024)\n"
            "held = libc.malloc(1024)\n"
            "for b in blocks: libc.free(b)\n"
            "before = rss(); trim_heap(); print(before - rss())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert int(out.stdout) > 150, out.stderr


def test_the_heap_is_kept_for_speed_only_where_asked():
    """The suite sets SPEECHSTUDIO_NO_MALLOPT (conftest); a child without it raises glibc's thresholds."""
    code = "from speechstudio.runtime import tune_heap_for_speed\nprint(tune_heap_for_speed())"
    env = {k: v for k, v in os.environ.items() if k != "SPEECHSTUDIO_NO_MALLOPT"}
    kept = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (kept.stdout.strip(), off.stdout.strip()) == ("True", "False"), kept.stderr + off.stderr


def test_a_lowered_thread_is_niced_alone():
    """The diarizer's thread runs at nice +10 (Linux: per thread); the other threads keep their priority."""
    seen = {}

    def work():
        seen["lowered"] = lower_thread_priority()
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen == {"lowered": True, "nice": min(before + 10, 19)}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before


def test_transcribe_restarts_once_with_malloc_in_huge_pages():
    """`speechstudio transcribe` as its own process starts again, once, with GLIBC_TUNABLES asking for huge pages
    (glibc 2.35+ reads it only at a start; 3x fewer page faults in Whisper's buffers), keeping what the user set;
    on an older glibc it runs on as it is. A library call never restarts the process that made it."""
    import platform

    code = ("import os, sys\n"
            "sys.argv = ['speechstudio', 'transcribe', '--help']\n"
            "print('start', os.environ.get('GLIBC_TUNABLES'), flush=True)\n"
            "from speechstudio.cli import main\n"
            "sys.exit(main())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES", "SPEECHSTUDIO_NO_MALLOPT")}
    env["GLIBC_TUNABLES"] = "glibc.malloc.arena_max=4"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    library, version = platform.libc_ver()
    restarts = library == "glibc" and tuple(map(int, version.split(".")[:2])) >= (2, 35)
    starts = [line for line in out.stdout.splitlines() if line.startswith("start ")]
    assert out.returncode == 0 and "usage: speechstudio transcribe" in out.stdout
    assert starts == ["start glibc.malloc.arena_max=4"] + ["start glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1"] * restarts


def test_onnxruntime_keeps_no_telemetry_store_in_the_home(tmp_path):
    """onnxruntime 1.32 writes a device id and a telemetry database under ~/.cache/Microsoft (or $XDG_CACHE_HOME) at
    its first session (and sends them when online); with speechstudio imported first, a session (as a Piper voice
    opens) writes nothing into the home."""
    import onnxruntime

    model = os.path.join(os.path.dirname(onnxruntime.__file__), "datasets", "mul_1.onnx")
    # as on a user's machine: it keeps no store where CI is set, and writes under $XDG_CACHE_HOME when set
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "CI")}
    env.update(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    code = ("import speechstudio, onnxruntime\n"
            f"onnxruntime.InferenceSession({model!r}, providers=['CPUExecutionProvider'])\nprint('ran')")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ran", out.stderr
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == []
