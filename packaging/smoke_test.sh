#!/usr/bin/env bash
# Smoke test of a built SpeechStudio app, run with a clean environment (no venv, empty HOME):
#   packaging/smoke_test.sh PATH/TO/SpeechStudio     (the app's executable, or the .deb's /usr/bin/speechstudio)
# Checks: --version; transcribes the bundled sample (resources/samples, JFK) to the right words;
# speaks a sentence to a non-empty WAV; opens the window offscreen (--quit-after-shown); doctor runs.
# Exit 0 when all pass; the first failure prints what went wrong and exits 1.
set -uo pipefail
EXE="${1:?usage: smoke_test.sh PATH/TO/SpeechStudio}"
[ -x "$EXE" ] || { echo "smoke: $EXE is not an executable" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
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
echo "smoke: all passed ($EXE)"
