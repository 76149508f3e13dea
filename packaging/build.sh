#!/usr/bin/env bash
# Build the SpeechStudio desktop artifacts on Linux:
#   OUT/speechstudio-VERSION-linux-ARCH-FLAVOR.tar.xz   the one-folder app (unpack anywhere: tar xf; run SpeechStudio/SpeechStudio)
#   OUT/speechstudio_VERSION-FLAVOR_DEBARCH.deb          /opt/speechstudio, /usr/bin/speechstudio, menu entry, icons, MIME
# FLAVOR is "cpu" or "cudaXYZ", from the torch installed in the Python that runs the build.
#
# Usage: packaging/build.sh [--out DIR] [--no-deb] [--skip-pyinstaller] [--fast]
#   Run it in the build venv (python with: pip install pyinstaller -e '.[models,clone]'). OUT defaults to
#   dist/ in the repository (git-ignored). --skip-pyinstaller re-packs an existing OUT/app/SpeechStudio.
#   --fast: xz -1 for both archives, a test build (CI): packed ~3.5x faster, ~9 % bigger; releases use xz -6.
# Windows and macOS: see packaging/README.md (same spec; Inno Setup script in packaging/windows).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$HERE")"
OUT="$ROOT/dist"
DEB=1
PYINSTALLER=1
XZ_LEVEL=6
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    --no-deb) DEB=0; shift ;;
    --skip-pyinstaller) PYINSTALLER=0; shift ;;
    --fast) XZ_LEVEL=1; shift ;;
    -h|--help) sed -n 2,12p "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
PY="${PYTHON:-python}"
cd "$ROOT"

VERSION="$($PY -c 'import re; print(re.search(r"^__version__ = \"([^\"]+)\"", open("speechstudio/__init__.py").read(), re.M).group(1))')"
FLAVOR="$($PY -c 'from speechstudio.doctor.gpu import torch_build as b; c = b()["cuda"]; print("cuda" + c.replace(".", "") if c else "cpu")')"
ARCH="$(uname -m)"
NAME="speechstudio-$VERSION-linux-$ARCH-$FLAVOR"
APP="$OUT/app/SpeechStudio"
t0=$(date +%s)

if [ "$PYINSTALLER" = 1 ]; then
  echo "== PyInstaller ($FLAVOR build) -> $APP"
  $PY -m PyInstaller --noconfirm --log-level WARN --distpath "$OUT/app" --workpath "$OUT/work" \
      "$HERE/speechstudio.spec"
fi
[ -x "$APP/SpeechStudio" ] || { echo "build.sh: $APP/SpeechStudio was not built" >&2; exit 1; }
# Symbol tables out of the shared libraries (strip --strip-unneeded keeps .dynsym: loading is
# unchanged): 1.45 -> 1.25 GB, libtorch_cpu.so alone 434 -> 345 MB, ctranslate2's _ext 68 -> 1.3 MB.
# Not the libraries auditwheel vendored into a wheel's `<name>.libs/` folder: patchelf rewrote
# their layout, and strip breaks them (numpy's OpenBLAS: "ELF load command address/offset not
# page-aligned"). The smoke test runs on the result.
if command -v strip >/dev/null; then
  n=0
  while IFS= read -r -d '' f; do
    strip --strip-unneeded "$f" && n=$((n + 1))
  done < <(find "$APP/_internal" -type f -name '*.so*' -not -path '*.libs/*' -print0)
  echo "stripped $n shared libraries"
fi
t1=$(date +%s)

# Desktop integration files travel inside the app folder too (tar users: see share/README).
mkdir -p "$APP/share/applications" "$APP/share/icons/hicolor/scalable/apps"
cp "$HERE/linux/speechstudio.desktop" "$APP/share/applications/"
cp "$HERE/icons/speechstudio.svg" "$APP/share/icons/hicolor/scalable/apps/"
for png in "$HERE"/icons/speechstudio-*.png; do
  n="$(basename "$png" .png)"; n="${n#speechstudio-}"
  mkdir -p "$APP/share/icons/hicolor/${n}x${n}/apps"
  cp "$png" "$APP/share/icons/hicolor/${n}x${n}/apps/speechstudio.png"
done
cp "$HERE/linux/README-tarball.txt" "$APP/README.txt"

# xz, not gzip: a third smaller (libtorch_cpu.so alone: 73 vs 115 MB; the CPU app 446 MB vs about
# 600 MB); `tar xf` unpacks either, and xz is Debian's default for .deb data too. Level 6 against 1 on
# the CPU app (2 cores, 2026-12-06): 519 MB in 477 s against 567 MB in 132 s.
echo "== $NAME.tar.xz"
rm -f "$OUT/$NAME.tar.xz"
tar -C "$OUT/app" -cf - SpeechStudio | xz -T0 -"$XZ_LEVEL" > "$OUT/$NAME.tar.xz.part"
mv "$OUT/$NAME.tar.xz.part" "$OUT/$NAME.tar.xz"
t2=$(date +%s)

if [ "$DEB" = 1 ]; then
  DEBARCH="$(dpkg --print-architecture)"
  GLIBC="$(getconf GNU_LIBC_VERSION | awk '{print $2}')"
  DEBFILE="$OUT/speechstudio_${VERSION}-${FLAVOR}_${DEBARCH}.deb"
  echo "== $(basename "$DEBFILE")"
  STAGE="$OUT/deb-root"
  rm -rf "$STAGE"
  mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/doc/speechstudio"
  cp -al "$APP" "$STAGE/opt/speechstudio" 2>/dev/null || cp -a "$APP" "$STAGE/opt/speechstudio"
  mv "$STAGE/opt/speechstudio/share/applications" "$STAGE/opt/speechstudio/share/icons" "$STAGE/usr/share/"
  rmdir "$STAGE/opt/speechstudio/share"
  rm "$STAGE/opt/speechstudio/README.txt"
  ln -s /opt/speechstudio/SpeechStudio "$STAGE/usr/bin/speechstudio"
  cp "$HERE/linux/copyright" "$STAGE/usr/share/doc/speechstudio/copyright"
  SIZE_KB="$(du -sk "$STAGE" | cut -f1)"
  sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$DEBARCH/" -e "s/@SIZE@/$SIZE_KB/" -e "s/@GLIBC@/$GLIBC/" \
      -e "s/@FLAVOR@/$FLAVOR/" "$HERE/linux/control.in" > "$STAGE/DEBIAN/control"
  dpkg-deb --root-owner-group -Zxz -z"$XZ_LEVEL" --build "$STAGE" "$DEBFILE.part" >/dev/null
  mv "$DEBFILE.part" "$DEBFILE"
  rm -rf "$STAGE"
fi
t3=$(date +%s)

echo "== sizes"
echo "app folder: $(du -sh "$APP" | cut -f1) in $(find "$APP" -type f | wc -l) files ($APP)"
find "$OUT" -maxdepth 1 \( -name '*.tar.xz' -o -name '*.deb' \) -exec ls -l {} + | awk '{printf "%s: %.0f MB\n", $NF, $5/1e6}'
TRIMMED="$OUT/work/speechstudio/trimmed.tsv"
[ ! -f "$TRIMMED" ] || awk -F'\t' '{n++; s+=$2} END {printf "left out by packaging/trim.py: %d files, %.0f MB\n", n, s/1e6}' "$TRIMMED"
echo "times: pyinstaller $((t1-t0)) s, tar.xz $((t2-t1)) s, deb $((t3-t2)) s"
