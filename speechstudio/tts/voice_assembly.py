"""Assemble a SpeechT5 (checkpoint, ``vocoder/``, ``speakers.npz`` from Matthijs/cmu-arctic-xvectors) or
FastSpeech2-Conformer (checkpoint + espnet tokenizer files) store folder from Hub downloads: hard links
from the HF cache (copies where refused), built aside and renamed in."""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from speechstudio.atomic import atomic_folder
from speechstudio.errors import ModelNotFoundError, OfflineError
from speechstudio.tts.voices import FASTSPEECH2_TOKENIZER, SPEECHT5_VOCODER, XVECTORS_DATASET

ARCTIC_SPEAKERS = ("awb", "bdl", "clb", "jmk", "ksp", "rms", "slt")


def link_tree(src: Path, dest: Path) -> None:
    """Hard-link (else copy) every file under ``src`` into ``dest``, keeping relative paths; the
    HF cache's symbolic links are followed to their blobs. Hidden entries (``.cache``) are skipped."""
    for path in sorted(Path(src).rglob("*")):
        rel = path.relative_to(src)
        if any(part.startswith(".") for part in rel.parts) or path.is_dir():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        real = os.path.realpath(path)
        try:
            os.link(real, target)
        except OSError:
            shutil.copyfile(real, target)


def xvectors_from_zip(data: bytes | Path) -> dict[str, np.ndarray]:
    """``{speaker: float32 (512,)}``: the first ``.npy`` (sorted by name) of each CMU ARCTIC speaker in
    a zip archive of x-vectors. Raises ``ModelNotFoundError`` when no speaker is found."""
    with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data) as zf:
        names = sorted(n for n in zf.namelist() if n.endswith(".npy"))
        out: dict[str, np.ndarray] = {}
        for n in names:
            m = re.search(r"(?:^|[_/-])(" + "|".join(ARCTIC_SPEAKERS) + r")(?:[_/-]|$)", n)
            if m and m.group(1) not in out:
                out[m.group(1)] = np.load(io.BytesIO(zf.read(n))).astype(np.float32).reshape(-1)
    if not out:
        raise ModelNotFoundError("no CMU ARCTIC x-vectors (.npy named by speaker) in the archive")
    return dict(sorted(out.items()))


def _download_xvectors() -> dict[str, np.ndarray]:
    import huggingface_hub
    from huggingface_hub import errors as hf_errors

    try:
        files = huggingface_hub.list_repo_files(XVECTORS_DATASET, repo_type="dataset")
        zips = sorted(f for f in files if f.endswith(".zip"))
        if not zips:
            raise ModelNotFoundError(f"{XVECTORS_DATASET}: no zip archive of x-vectors in the dataset")
        path = huggingface_hub.hf_hub_download(XVECTORS_DATASET, zips[0], repo_type="dataset")
    except (hf_errors.RepositoryNotFoundError, hf_errors.EntryNotFoundError) as exc:
        raise ModelNotFoundError(f"{XVECTORS_DATASET}: speaker x-vectors not found ({type(exc).__name__})") from exc
    except (hf_errors.LocalEntryNotFoundError, OSError, hf_errors.HfHubHTTPError) as exc:
        raise OfflineError(f"{XVECTORS_DATASET}: cannot download the speaker x-vectors ({type(exc).__name__})") from exc
    return xvectors_from_zip(Path(path))


def add_speecht5_parts(folder: Path, snapshot_fn: Callable[..., Path]) -> None:
    """A SpeechT5 voice's companions into ``folder``: ``vocoder/`` and ``speakers.npz``."""
    link_tree(snapshot_fn(SPEECHT5_VOCODER), folder / "vocoder")
    np.savez(folder / "speakers.npz", **_download_xvectors())


def add_fastspeech2_parts(folder: Path, snapshot_fn: Callable[..., Path]) -> None:
    """A FastSpeech2-Conformer voice's tokenizer files into ``folder`` (unless the checkpoint has them)."""
    if (folder / "vocab.json").is_file():
        return
    files = ["vocab.json", "tokenizer_config.json", "special_tokens_map.json"]
    tok = snapshot_fn(FASTSPEECH2_TOKENIZER, files)
    for f in files:
        if (tok / f).is_file():
            shutil.copyfile(tok / f, folder / f)


def assemble_voice(family: str, hf_id: str, snapshot: Path, dest: Path, snapshot_fn: Callable[..., Path],
                   add_parts: Callable[[Path, Callable[..., Path]], None]) -> Path:
    """Build ``dest`` for a ``family`` voice from ``snapshot``; ``add_parts(folder, snapshot_fn)`` adds the
    companions. Raises ``OfflineError`` / ``ModelNotFoundError`` (nothing left in the store)."""
    with atomic_folder(dest) as tmp:
        link_tree(snapshot, tmp)
        add_parts(tmp, snapshot_fn)
        meta = {"kind": "transformers", "family": family, "hf_id": hf_id, "path": str(dest),
                "source": f"downloaded from {hf_id}"}
        (tmp / "voice.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return dest
