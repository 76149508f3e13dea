"""A target application for the dictation tests under Xvfb: one Qt text field (window title
``dictation-target``) that has the focus; every 100 ms it writes its plain text to ``argv[1]``
(atomically: temp file + os.replace). Run: ``python tests/x11_target.py OUT.txt``."""
from __future__ import annotations

import os
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QPlainTextEdit


def main() -> int:
    out = sys.argv[1]
    app = QApplication(sys.argv[:1])
    edit = QPlainTextEdit()
    edit.setWindowTitle("dictation-target")
    edit.resize(500, 200)
    edit.show()
    edit.activateWindow()
    edit.setFocus()

    def dump() -> None:
        tmp = out + ".part"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(edit.toPlainText())
        os.replace(tmp, out)

    timer = QTimer()
    timer.timeout.connect(dump)
    timer.start(100)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
