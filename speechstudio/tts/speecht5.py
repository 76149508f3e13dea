"""SpeechT5 text-to-speech (Ao et al. 2022; transformers ``SpeechT5ForTextToSpeech``, microsoft/speecht5_tts)
with its HiFi-GAN (``vocoder/``) and x-vectors (``speakers.npz``: name -> float32 ``(512,)``, CMU ARCTIC,
Matthijs/cmu-arctic-xvectors). Controls: ``speaker``, ``seed`` (dropout stays on). Output 16 kHz."""
from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import numpy as np

from speechstudio.errors import ModelNotFoundError
from speechstudio.hub.download import hub_error
from speechstudio.tts.family import TransformersFamily, TtsCapabilities, link_tree, to_device
from speechstudio.tts.voice_text import FamilyVoice

SPEECHT5_CONTROLS = ("speaker", "seed")
SPEECHT5_VOCODER = "microsoft/speecht5_hifigan"  # the vocoder named on the microsoft/speecht5_tts model card
XVECTORS_DATASET = "Matthijs/cmu-arctic-xvectors"  # the x-vectors the model card uses (512-dim, 7 speakers)
ARCTIC_SPEAKERS = ("awb", "bdl", "clb", "jmk", "ksp", "rms", "slt")
#: Stop-token threshold and longest output relative to the input (transformers' defaults).
STOP_THRESHOLD, MAX_LEN_RATIO = 0.5, 20.0


def read_speakers(folder: Path) -> dict:
    """``{name: np.ndarray[float32] (dim,)}`` from ``folder/speakers.npz`` (sorted by name)."""
    path = Path(folder) / "speakers.npz"
    if not path.is_file():
        raise ModelNotFoundError(f"{folder}: no speakers.npz with speaker x-vectors (speechstudio voices download "
                                 "microsoft/speecht5_tts fetches them)")
    with np.load(path) as data:
        return {k: np.asarray(data[k], dtype=np.float32).reshape(-1) for k in sorted(data.files)}


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


def add_speecht5_parts(folder: Path, snapshot_fn) -> None:
    """A SpeechT5 voice's companions into ``folder``: ``vocoder/`` and ``speakers.npz``."""
    import huggingface_hub

    link_tree(snapshot_fn(SPEECHT5_VOCODER), folder / "vocoder")
    try:
        files = huggingface_hub.list_repo_files(XVECTORS_DATASET, repo_type="dataset")
        zips = sorted(f for f in files if f.endswith(".zip"))
        path = huggingface_hub.hf_hub_download(XVECTORS_DATASET, zips[0], repo_type="dataset") if zips else None
    except Exception as exc:  # noqa: BLE001 - the hub's errors, one line each (hub.download.hub_error)
        raise hub_error(XVECTORS_DATASET, exc) from exc
    if not zips:
        raise ModelNotFoundError(f"{XVECTORS_DATASET}: no zip archive of x-vectors in the dataset")
    np.savez(folder / "speakers.npz", **xvectors_from_zip(Path(path)))


class SpeechT5Voice(FamilyVoice):
    """A loaded SpeechT5 voice; ``vocoder``: the HiFi-GAN; ``xvectors``: ``torch.Tensor``
    shape ``(n_speakers, dim)`` in the order of ``speakers``."""

    vocoder = None
    xvectors = None

    def _tokenize(self, text: str) -> list[int]:
        ids = list(self.tokenizer(text, return_tensors=None)["input_ids"])
        unk = self.tokenizer.unk_token_id
        if unk is not None and unk in ids:
            vocab = self.tokenizer.get_vocab()
            lost = sorted({ch for ch in text if ("▁" + ch) not in vocab and ch not in vocab and not ch.isspace()})
            self.warnings.append(f"voice {self.name} cannot say characters {''.join(lost)!r}; skipped")
            ids = [i for i in ids if i != unk]
        return ids

    def _run(self, ids: list[int], settings):
        import torch

        sid = self.speaker_id(settings.speaker)
        if settings.seed is not None:
            torch.manual_seed(int(settings.seed) % 2**64)
        x = torch.tensor([ids], dtype=torch.long, device=self.device)
        emb = self.xvectors[sid : sid + 1]
        wav = self.model.generate_speech(x, emb, threshold=STOP_THRESHOLD, maxlenratio=MAX_LEN_RATIO,
                                         vocoder=self.vocoder)
        return wav.reshape(-1)

    def speaker_id(self, speaker):
        return super().speaker_id(speaker) or 0  # always an x-vector row, even with one speaker


def load(source, config, device: str, precision: str, name: str | None):
    """Load the SpeechT5 voice folder ``source`` on ``device``. Raises ``ModelNotFoundError`` when the vocoder
    or the speakers are missing."""
    import torch
    from transformers import SpeechT5ForTextToSpeech, SpeechT5HifiGan, SpeechT5Tokenizer

    folder = Path(source)
    if not folder.is_dir():
        raise ModelNotFoundError(f"{source}: a SpeechT5 voice is a folder (speechstudio voices download "
                                 "microsoft/speecht5_tts)")
    if not (folder / "vocoder" / "config.json").is_file():
        raise ModelNotFoundError(f"{folder}: no HiFi-GAN vocoder in {folder / 'vocoder'} (speechstudio voices "
                                 "download microsoft/speecht5_tts fetches microsoft/speecht5_hifigan)")
    speakers = read_speakers(folder)
    model = to_device(SpeechT5ForTextToSpeech.from_pretrained(str(folder), local_files_only=True), device, precision)
    vocoder = to_device(SpeechT5HifiGan.from_pretrained(str(folder / "vocoder"), local_files_only=True), device,
                        precision)
    tokenizer = SpeechT5Tokenizer.from_pretrained(str(folder), local_files_only=True)
    dim = int(config.speaker_embedding_dim)
    bad = [k for k, v in speakers.items() if v.shape != (dim,)]
    if bad or not speakers:
        raise ModelNotFoundError(f"{folder / 'speakers.npz'}: speaker x-vectors must have {dim} values "
                                 f"({', '.join(bad[:3]) or 'none found'})")
    voice = SpeechT5Voice(
        name=name or folder.name, model=model, sample_rate=int(vocoder.config.sampling_rate), language="en",
        family=FAMILY.name, tokenizer=tokenizer, speakers={k: i for i, k in enumerate(speakers)},
        num_speakers=len(speakers), device=device, dtype=precision, controls=SPEECHT5_CONTROLS,
        defaults={"length_scale": 1.0, "controls": SPEECHT5_CONTROLS},
    )
    voice.vocoder = vocoder
    voice.xvectors = torch.from_numpy(np.stack(list(speakers.values()))).to(device=device, dtype=model.dtype)
    return voice


FAMILY = TransformersFamily("speecht5", "SpeechT5",
                            TtsCapabilities(controls=SPEECHT5_CONTROLS),
                            model_type="speecht5", loader=load, parts=add_speecht5_parts)
