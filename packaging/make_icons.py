"""Render packaging/icons/speechstudio.svg to the PNG sizes desktops use (16-512 px, hicolor theme)
and a Windows .ico, with Qt's SVG renderer (PySide6). Run after editing the SVG:

    python packaging/make_icons.py          # writes packaging/icons/speechstudio-<N>.png and speechstudio.ico

macOS: ``iconutil`` builds the .icns from these PNGs (see packaging/README.md).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
HERE = Path(__file__).resolve().parent / "icons"


def render(svg: Path, size: int):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(str(svg)).render(painter)
    painter.end()
    return image


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - Qt needs one
    svg = HERE / "speechstudio.svg"
    for size in SIZES:
        out = HERE / f"speechstudio-{size}.png"
        if not render(svg, size).save(str(out), "PNG"):
            raise SystemExit(f"could not write {out}")
    if not render(svg, 256).save(str(HERE / "speechstudio.ico"), "ICO"):
        raise SystemExit("could not write speechstudio.ico (Qt's ico image plugin is missing)")
    print(f"wrote {len(SIZES)} PNGs and speechstudio.ico in {HERE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
