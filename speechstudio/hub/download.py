"""Download models into the Hugging Face cache, failing fast offline: each network step has a deadline
(``network_timeout_s()``, 5 s, ``SPEECHSTUDIO_HUB_TIMEOUT``); ``HF_HUB_OFFLINE`` means no network; a
failure is an ``OfflineError`` saying how to get the model."""
from __future__ import annotations

import fnmatch
import glob
import os
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from speechstudio.errors import ModelNotFoundError, OfflineError
from speechstudio.hub.cache import cached_model
from speechstudio.hub.catalog import canonical_id, looks_like_hf_id
from speechstudio.hub.detect import detect_engine
from speechstudio.hub.paths import hf_cache_dir
from speechstudio.hub.types import ResolvedModel
from speechstudio.progress import hub_tqdm_class

T = TypeVar("T")

_TRUE = {"1", "on", "yes", "true"}

#: Files never needed by our recognisers and voices (other frameworks' exports, repo plumbing).
SKIPPED_PATTERNS = ("*.h5", "*.msgpack", "*.ot", "*.onnx", "*.onnx_data", "*.tflite", "*.pb", "*.mlmodel", "*.ckpt",
                    "onnx/*", "coreml/*", "tf_model*", "flax_model*", "rust_model*", ".gitattributes")

IMPORT_HINT = (
    "to use it without network, copy the model folder from a machine that has it (for example its "
    "Hugging Face cache snapshot) and give that folder: `speechstudio models import DIR` for a speech recogniser, "
    "`--voice DIR` for a voice"
)


def network_timeout_s() -> float:
    """Seconds any single Hub request may take before we give up (env ``SPEECHSTUDIO_HUB_TIMEOUT``, default 5)."""
    try:
        return max(0.1, float(os.environ.get("SPEECHSTUDIO_HUB_TIMEOUT", "5")))
    except ValueError:
        return 5.0


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` / ``TRANSFORMERS_OFFLINE`` is set now, or
    ``huggingface_hub.constants.HF_HUB_OFFLINE`` (read at its import) says so."""
    if any(os.environ.get(var, "").strip().lower() in _TRUE for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")):
        return True
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None and "HF_HUB_OFFLINE" not in os.environ:
        return bool(getattr(constants, "HF_HUB_OFFLINE", False))
    return False


def hub_endpoint() -> str:
    """The Hub URL: ``$HF_ENDPOINT`` or ``https://huggingface.co``."""
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


def _call_with_deadline(fn: Callable[[], T], timeout_s: float, what: str) -> T:
    """Run ``fn()`` in a daemon thread; return its result, re-raise its error, or raise ``OfflineError`` when it has
    not finished after ``timeout_s`` (DNS lookups ignore socket timeouts, so only a thread bounds them)."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    thread = threading.Thread(target=target, name=f"speechstudio-hub-{what}", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        raise OfflineError(f"no answer from the Hugging Face Hub ({hub_endpoint()}) within {timeout_s:g} s ({what})")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["result"]  # type: ignore[return-value]


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = text[:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _probe_endpoint(timeout_s: float) -> None:
    """One HEAD request to the Hub endpoint through huggingface_hub's HTTP session (proxies honoured)."""
    from huggingface_hub.utils import get_session

    get_session().head(hub_endpoint(), timeout=timeout_s)


def hub_reachable(timeout_s: float | None = None) -> tuple[bool, str]:
    """``(True, "")`` when the Hub answers within ``timeout_s`` (default ``network_timeout_s()``; any
    HTTP status), else ``(False, reason)``; no network when offline mode is on."""
    if hub_offline():
        return False, "HF_HUB_OFFLINE=1 is set"
    t = network_timeout_s() if timeout_s is None else timeout_s
    try:
        _call_with_deadline(lambda: _probe_endpoint(t), t, "reachability check")
    except OfflineError as exc:
        return False, str(exc)
    except Exception as exc:  # noqa: BLE001 - any failure means unreachable
        return False, f"cannot connect to {hub_endpoint()} ({_short(exc)})"
    return True, ""


def select_files(files: Iterable[str]) -> list[str]:
    """The repo ``files`` to fetch, in input order: not other frameworks' exports (``SKIPPED_PATTERNS``), not
    ``pytorch_model*.bin`` (+ index) when ``*.safetensors`` exist; CTranslate2's ``model.bin`` is kept."""
    names = list(files)
    has_safetensors = any(n.endswith(".safetensors") for n in names)
    chosen = []
    for name in names:
        base = name.rsplit("/", 1)[-1]
        if any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(base, p) for p in SKIPPED_PATTERNS):
            continue
        if has_safetensors and base.startswith("pytorch_model") and base.endswith((".bin", ".bin.index.json")):
            continue
        chosen.append(name)
    return chosen


def _offline_error(repo_id: str, reason: str, kind: str = "no_network") -> OfflineError:
    return OfflineError(f"cannot download {repo_id}: {reason}; {IMPORT_HINT}", kind=kind, value=repo_id)


def hub_error(repo_id: str, exc: BaseException) -> Exception:
    """Turn a huggingface_hub / HTTP exception into our one-line user error."""
    from huggingface_hub import errors as hf_errors

    if isinstance(exc, hf_errors.GatedRepoError):
        return ModelNotFoundError(f"{repo_id} is gated on the Hugging Face Hub: accept its terms on the website and "
                                  "log in (`hf auth login`), or import a local copy")
    if isinstance(exc, (hf_errors.RepositoryNotFoundError, hf_errors.RevisionNotFoundError)):
        return ModelNotFoundError(f"{repo_id} was not found on the Hugging Face Hub (check the id; private models "
                                  "need `hf auth login`)")
    if isinstance(exc, hf_errors.OfflineModeIsEnabled):
        return _offline_error(repo_id, "HF_HUB_OFFLINE=1 is set and it is not in the Hugging Face cache", "offline")
    if isinstance(exc, hf_errors.LocalEntryNotFoundError):
        return _offline_error(repo_id, "the Hugging Face Hub is unreachable and it is not fully cached")
    if isinstance(exc, hf_errors.HfHubHTTPError):
        status = getattr(getattr(exc, "response", None), "status_code", "?")
        if status in (401, 403):
            return ModelNotFoundError(f"{repo_id}: access denied by the Hugging Face Hub (HTTP {status}); log in with `hf auth login`")
        return _offline_error(repo_id, f"the Hugging Face Hub answered HTTP {status}")
    # connection errors that are no OSError (requests' are): httpx / httpx2's TransportError, once imported
    transport = tuple(m.TransportError for m in map(sys.modules.get, ("httpx2", "httpx")) if m is not None)
    if isinstance(exc, transport + (OSError,)):
        return _offline_error(repo_id, f"cannot reach {hub_endpoint()} ({_short(exc)})")
    return exc if isinstance(exc, Exception) else RuntimeError(str(exc))


def list_repo_files(repo_id: str, timeout_s: float | None = None) -> list[str]:
    """A model repo's files on the Hub within a deadline. Raises ``OfflineError`` (offline, no answer,
    5xx) or ``ModelNotFoundError`` (no such repo, gated, denied)."""
    import huggingface_hub as hf

    if hub_offline():
        raise _offline_error(repo_id, "HF_HUB_OFFLINE=1 is set", "offline")
    t = network_timeout_s() if timeout_s is None else timeout_s
    try:
        info = _call_with_deadline(lambda: hf.HfApi().model_info(repo_id, timeout=t), t, "listing files")
    except OfflineError as exc:
        raise _offline_error(repo_id, str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - mapped to a user error
        raise hub_error(repo_id, exc) from exc
    return [s.rfilename for s in (getattr(info, "siblings", None) or [])]


def download_model(repo_id: str, progress: bool = True) -> ResolvedModel:
    """Download ``repo_id`` (or alias) into the HF cache, resuming; a ``ResolvedModel`` (``"downloaded"``,
    or ``"hf cache"`` when unreachable but cached). Raises ``OfflineError`` (not cached),
    ``ModelNotFoundError`` (no repo, or not an ASR model we run)."""
    import huggingface_hub as hf

    repo_id = canonical_id(repo_id.strip())
    if not looks_like_hf_id(repo_id):
        raise ModelNotFoundError(f"{repo_id!r} is not a Hugging Face model id (expected OWNER/NAME, "
                                 "e.g. facebook/wav2vec2-base-960h)")

    t = network_timeout_s()
    try:
        if hub_offline():
            raise _offline_error(repo_id, "HF_HUB_OFFLINE=1 is set and it is not in the Hugging Face cache", "offline")
        files = list_repo_files(repo_id, timeout_s=t)
    except OfflineError:
        try:
            cached = cached_model(repo_id)
        except ModelNotFoundError:
            cached = None
        if cached is not None:
            return cached
        raise
    allow = [glob.escape(f) for f in select_files(files)] or None

    from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

    was_disabled = are_progress_bars_disabled()
    if not progress and not was_disabled:
        disable_progress_bars()
    try:
        path = hf.snapshot_download(repo_id, cache_dir=str(hf_cache_dir()), allow_patterns=allow, etag_timeout=t,
                                    tqdm_class=hub_tqdm_class())  # plain lines, not \r redraws, into a log
    except Exception as exc:  # noqa: BLE001 - mapped to a user error
        error = hub_error(repo_id, exc)
        if isinstance(error, OfflineError):
            error = OfflineError(f"{error} (a rerun resumes the partial download)", kind=error.kind, value=repo_id)
        raise error from exc
    finally:
        if not progress and not was_disabled:
            enable_progress_bars()
    try:
        engine = detect_engine(path)
    except ModelNotFoundError as exc:
        raise ModelNotFoundError(f"{repo_id} was downloaded but cannot be used: {exc}") from exc
    return ResolvedModel(Path(path), repo_id, engine, "downloaded")
