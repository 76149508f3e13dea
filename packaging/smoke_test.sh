#!/usr/bin/env bash
# Smoke test of a built SpeechStudio app, run with a clean environment (no venv, empty HOME):
#   packaging/smoke_test.sh PATH/TO/SpeechStudio [MODELS]   (the app's executable, or the .deb's /usr/bin/speechstudio)
# Checks: --version; transcribes the bundled sample (resources/samples, JFK) to the right words;
# labels its speaker (the voiceprint diarizer: Resemblyzer + scikit-learn bundled);
# speaks a sentence to a non-empty WAV; opens the window offscreen (--quit-after-shown); doctor runs.
# With MODELS (made by packaging/make_smoke_models.py): serves MODELS/hub as a local Hugging Face Hub
# (packaging/local_hub.py, HF_ENDPOINT), downloads a model through the installed app's own
# `models download` (the command the Models page runs as its child process) and transcribes the sample
# with it; then loads a tiny model of every other advertised family (HuBERT, Data2Vec-Audio,
# Wav2Vec2-Conformer, SpeechT5, FastSpeech2-Conformer) through the installed app.
# Exit 0 when all pass; the first failure prints what went wrong and exits 1.
set -uo pipefail
EXE="${1:?usage: smoke_test.sh PATH/TO/SpeechStudio [MODELS]}"
MODELS="${2:-}"
HERE="$(cd "$(dirname "$0")" && pwd)"
[ -x "$EXE" ] || { echo "smoke: $EXE is not an executable" >&2; exit 1; }
WORK="$(mktemp -d)"
HUB_PID=""
trap '[ -n "$HUB_PID" ] && kill "$HUB_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/home" "$WORK/in"
EXPECT="ask not what your country can do for you"

run() {  # run NAME=VALUE... CMD ARGS...: a clean environment with an empty HOME
  env -i PATH=/usr/bin:/bin HOME="$WORK/home" LANG=C.UTF-8 "$@"
}
fail() { echo "smoke: FAIL: $*" >&2; exit 1; }
step() { printf 'smoke: %-40s' "$1"; T0=$(date +%s%N); }
done_step() { local ds=$(( ($(date +%s%N) - T0) / 100000000 )); echo "ok ($((ds / 10)).$((ds % 10)) s)"; }

step "--version"
out="$(run "$EXE" --version 2>&1)" || fail "--version exited $?: $out"
echo "$out" | grep -Eq '^speechstudio [0-9]' || fail "--version printed: $out"
done_step

step "transcribe the bundled sample"
SAMPLE="$(dirname "$(readlink -f "$EXE")")/_internal/resources/samples/jfk_inaugural_1961.mp3"
[ -f "$SAMPLE" ] || fail "the bundled sample is missing: $SAMPLE"
cp "$SAMPLE" "$WORK/in/"
out="$(run "$EXE" transcribe "$WORK/in" --format txt --no-download --quiet 2>&1)" || fail "transcribe exited $?: $out"
TXT="$WORK/in/jfk_inaugural_1961.txt"
[ -s "$TXT" ] || fail "no transcript written: $out"
tr -d '[:punct:]' < "$TXT" | tr '[:upper:]' '[:lower:]' | tr -s '[:space:]' ' ' | grep -q "$EXPECT" \
  || fail "transcript lacks \"$EXPECT\": $(cat "$TXT")"
done_step

step "speaker labels on the sample"
out="$(run "$EXE" transcribe "$WORK/in/jfk_inaugural_1961.mp3" --speakers auto --format json --output-dir "$WORK/spk" \
       --no-download --quiet 2>&1)" || fail "transcribe --speakers exited $?: $out"
grep -q '"speaker": "' "$WORK/spk/jfk_inaugural_1961.json" 2>/dev/null || fail "no speaker labels in the JSON: $out"
done_step

step "speak a sentence to a WAV"
out="$(run "$EXE" speak "This is the SpeechStudio smoke test." --out "$WORK/hello.wav" 2>&1)" || fail "speak exited $?: $out"
size=$(stat -c %s "$WORK/hello.wav" 2>/dev/null || echo 0)
[ "$size" -gt 22050 ] || fail "WAV too small ($size bytes): $out"
[ "$(head -c 4 "$WORK/hello.wav")" = "RIFF" ] && [ "$(dd if="$WORK/hello.wav" bs=1 skip=8 count=4 2>/dev/null)" = "WAVE" ] \
  || fail "not a WAV file: $WORK/hello.wav"
done_step

step "open the window offscreen"
out="$(run QT_QPA_PLATFORM=offscreen timeout 120 "$EXE" gui --quit-after-shown 2>&1)" || fail "gui exited $?: $out"
echo "$out" | grep -q '^SPEECHSTUDIO_STARTUP ' || fail "the window was not shown: $out"
done_step

step "doctor --offline --json"
out="$(run HF_HUB_OFFLINE=1 "$EXE" doctor --offline --json 2>&1)"; rc=$?
[ "$rc" -le 1 ] && echo "$out" | grep -q '"schema": 1' || fail "doctor exited $rc: $out"
done_step
if [ -n "$MODELS" ]; then
  step "download a model from a local Hub"
  python3 "$HERE/local_hub.py" "$MODELS/hub" --port-file "$WORK/hub.port" --log "$WORK/hub.log" 2>/dev/null &
  HUB_PID=$!
  for _ in $(seq 50); do [ -s "$WORK/hub.port" ] && break; sleep 0.1; done
  [ -s "$WORK/hub.port" ] || fail "the local hub did not start"
  HUB="http://127.0.0.1:$(cat "$WORK/hub.port")"
  out="$(run HF_ENDPOINT="$HUB" "$EXE" models download smoke/whisper-tiny-en --no-progress 2>&1)" \
    || fail "models download exited $?: $out"
  grep -q "GET /smoke/whisper-tiny-en/resolve/.*/model.bin -> 200" "$WORK/hub.log" \
    || fail "model.bin was not fetched from the local hub: $out; $(cat "$WORK/hub.log")"
  done_step

  step "transcribe with the downloaded model"
  rm -f "$TXT"
  out="$(run HF_HUB_OFFLINE=1 "$EXE" transcribe "$WORK/in/jfk_inaugural_1961.mp3" --model smoke/whisper-tiny-en \
         --format txt 2>&1)" || fail "transcribe --model smoke/whisper-tiny-en exited $?: $out"
  echo "$out" | grep -q "smoke/whisper-tiny-en" || fail "the downloaded model was not named as used: $out"
  tr -d '[:punct:]' < "$TXT" | tr '[:upper:]' '[:lower:]' | tr -s '[:space:]' ' ' | grep -q "$EXPECT" \
    || fail "transcript lacks \"$EXPECT\": $(cat "$TXT")"
  done_step

  for fam in hubert:HuBERT data2vec-audio:Data2Vec-Audio wav2vec2-conformer:Wav2Vec2-Conformer; do
    step "load a ${fam#*:} model"
    out="$(run HF_HUB_OFFLINE=1 "$EXE" transcribe "$WORK/in/jfk_inaugural_1961.mp3" --model "$MODELS/families/${fam%%:*}" \
           --format json --output-dir "$WORK/fam-${fam%%:*}" 2>&1)" || fail "transcribe with ${fam%%:*} exited $?: $out"
    echo "$out" | grep -q "(${fam#*:} CTC" || fail "${fam#*:} was not the model used: $out"
    [ -s "$WORK/fam-${fam%%:*}/jfk_inaugural_1961.json" ] || fail "no JSON written with ${fam%%:*}: $out"
    done_step
  done
  for voice in speecht5 fastspeech2-conformer; do
    step "load a $voice voice"
    out="$(run HF_HUB_OFFLINE=1 "$EXE" speak "Hello there." --voice "$MODELS/families/$voice" --out "$WORK/$voice.wav" 2>&1)" \
      || fail "speak with $voice exited $?: $out"
    echo "$out" | grep -q "^voice: $voice" || fail "the $voice voice was not used: $out"
    [ "$(head -c 4 "$WORK/$voice.wav")" = "RIFF" ] || fail "no WAV written with $voice: $out"
    done_step
  done
fi
echo "smoke: all passed ($EXE)"
