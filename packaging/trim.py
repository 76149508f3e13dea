"""What the PyInstaller spec leaves out of the app folder: files a desktop user never loads.

Each rule is a glob on the file's path inside the bundle (PyInstaller's destination name, ``/``
separated). ``keep(dest)`` is False for a dropped file; :func:`trim_toc` filters the spec's
``a.binaries`` / ``a.datas`` lists. Measured effect on the CPU build: see packaging/README.md.
"""
from __future__ import annotations

import fnmatch

# (glob, why). Globs match the whole destination path; ``*`` crosses ``/`` (fnmatch).
DROP: tuple[tuple[str, str], ...] = (
    # PyTorch: C++ headers, static libs, CMake files, its own test suite and test-only libraries
    ("torch/include/*", "C++ headers (extension builds only)"),
    ("torch/share/*", "CMake package files"),
    ("torch/test/*", "PyTorch's own tests"),
    ("torch/bin/test_*", "test binaries"), ("torch/bin/*StoreTest", "test binaries"),
    ("torch/bin/protoc*", "protobuf compiler"), ("torch/bin/upgrader_models/*", "test models"),
    ("torch/bin/*.pt", "test models"), ("torch/bin/*.ptl", "test models"),
    ("torch/lib/libtorchbind_test.so", "test library"),
    ("torch/lib/libjitbackend_test.so", "test library"),
    ("torch/lib/libbackend_with_compiler.so", "test library"),
    ("torch/lib/libaoti_custom_ops.so", "test library"),
    ("*.a", "static libraries"),
    ("*.lib", "static/import libraries"),
    ("*.h", "C/C++ headers"), ("*.hpp", "C++ headers"), ("*.cuh", "CUDA headers"),
    ("*.pyi", "type stubs"),
    ("nvidia/*/include/*", "CUDA headers"),
    # Qt: translations of Qt's own dialogs (the app is English), QML/Quick (the app uses widgets),
    # Designer, and plugins for things the app does not use
    ("PySide6/Qt/translations/*", "Qt translations"),
    ("PySide6/Qt/qml/*", "QML modules"),
    ("PySide6/Qt/lib/libQt6Quick*", "Qt Quick"), ("PySide6/Qt/lib/libQt6Qml*", "QML"),
    ("PySide6/Qt/lib/libQt6Designer*", "Qt Designer"), ("PySide6/Qt/lib/libQt6LabsStyleKit*", "Qt Quick"),
    ("PySide6/Qt/lib/libQt6Pdf*", "PDF"), ("PySide6/Qt/lib/libQt6VirtualKeyboard*", "virtual keyboard"),
    ("PySide6/Qt/plugins/qmltooling/*", "QML debugging"),
    ("PySide6/Qt/plugins/designer/*", "Qt Designer"),
    ("PySide6/Qt/plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so", "virtual keyboard"),
    ("PySide6/Qt/libexec/*", "Qt tools"),
    ("PySide6/Qt/metatypes/*", "build metadata"), ("PySide6/Qt/mkspecs/*", "build metadata"),
    ("PySide6/typesystems/*", "binding generator data"), ("PySide6/include/*", "headers"),
    ("PySide6/glue/*", "binding generator data"),
    ("PySide6/Qt*.pyi", "type stubs"),
)

# Python packages never imported by the desktop app (left out of the analysis entirely).
EXCLUDE_MODULES = (
    "tensorflow", "jax", "flax", "matplotlib", "IPython", "tkinter", "_tkinter", "pytest", "pytestqt",
    "PySide6.QtQuick", "PySide6.QtQml", "PySide6.QtQuickWidgets", "PySide6.QtDesigner", "PySide6.QtPdf",
    # the `test` extra's libraries, present when the build venv also runs the tests (CI): librosa
    # pulls numba + llvmlite (180 MB). The app never imports librosa (Resemblyzer gets the stand-in in
    # audio/librosa_stand_in.py); voice fine-tuning's alignment search uses numba when installed and
    # torch otherwise (finetune/vits/mas.py); scikit-learn came with librosa (the diarizer clusters
    # with SciPy since 2026-12-05).
    "librosa", "numba", "llvmlite", "sklearn",
    # Ray (the `cluster` extra, in the test extra for CI) is for archives on servers, not the desktop
    # app: an installed app asked for --cluster says which extra to install (batch/cluster.py).
    "ray",
)


def dropped_by(dest: str) -> str | None:
    """The reason ``dest`` (a path inside the bundle) is dropped, or None to keep it."""
    dest = dest.replace("\\", "/")
    for pattern, why in DROP:
        if fnmatch.fnmatch(dest, pattern):
            return why
    return None


def keep(dest: str) -> bool:
    """True when the file at ``dest`` stays in the app folder."""
    return dropped_by(dest) is None


def trim_toc(toc):
    """``toc`` (PyInstaller's list of ``(dest, src, typecode)``) without the dropped entries."""
    return [entry for entry in toc if keep(entry[0])]
