#!/usr/bin/env bash
# macOS: build SpeechStudio.app and a .dmg with one command (not run on Linux CI; needs Xcode's
# command line tools for iconutil/hdiutil). In the build venv (pip install pyinstaller -e '.[models]'):
#   packaging/macos/build.sh          -> dist/speechstudio-VERSION-macos-ARCH-cpu.dmg
# torch on macOS has no CUDA: the build is "cpu" (PyTorch uses Apple's MPS where the app asks for it).
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(dirname "$HERE")"
cd "$ROOT"
VERSION="$(python -c 'import re; print(re.search(r"^__version__ = \"([^\"]+)\"", open("speechstudio/__init__.py").read(), re.M).group(1))')"
ICONSET="$ROOT/dist/speechstudio.iconset"
rm -rf "$ICONSET" && mkdir -p "$ICONSET"
for s in 16 32 128 256 512; do
  cp "$HERE/icons/speechstudio-$s.png" "$ICONSET/icon_${s}x${s}.png"
  [ -f "$HERE/icons/speechstudio-$((s * 2)).png" ] && cp "$HERE/icons/speechstudio-$((s * 2)).png" "$ICONSET/icon_${s}x${s}@2x.png"
done
iconutil -c icns "$ICONSET" -o "$HERE/icons/speechstudio.icns"
python -m PyInstaller --noconfirm --distpath "$ROOT/dist/app" --workpath "$ROOT/dist/work" "$HERE/speechstudio.spec"
DMG="$ROOT/dist/speechstudio-$VERSION-macos-$(uname -m)-cpu.dmg"
hdiutil create -volname SpeechStudio -srcfolder "$ROOT/dist/app/SpeechStudio.app" -ov -format UDZO "$DMG"
echo "built $DMG"
