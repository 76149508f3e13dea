"""The main window's menus and keys (File, View with Ctrl+1…Ctrl+7, Help), opening files, and applying
the Settings to the open pages (a mixin of ``MainWindow``)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication

from speechstudio.gui import preferences
from speechstudio.gui.common import DEFAULT_MODEL, ModelPicker, action, missing_model
from speechstudio.gui.drop_paths import pick_inputs
from speechstudio.gui.help_menu import build_help_menu
from speechstudio.gui.preferences import add_recent, clear_recent, recent_files
from speechstudio.gui.settings_dialog import SettingsDialog
from speechstudio.gui.wording import plain_error

# nav order = stack order
PAGES = ("Transcribe", "Dictate", "Speak", "Record", "Models", "Clone voice", "Adapt recognition")


class WindowMenusMixin:
    def _menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        self.act_add_files = action(self, "Add &files…", self._add_files, "Ctrl+O", m)
        self.act_add_folder = action(self, "Add f&older…", lambda: self._add_files(folder=True), "Ctrl+Shift+O", m)
        self.recent_menu = m.addMenu("Open &recent")
        self.recent_menu.setObjectName("recent_menu")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._fill_recent()
        m.addSeparator()
        self.act_settings = action(self, "&Settings…", self.open_settings, "Ctrl+,", m)
        m.addSeparator()
        action(self, "&Quit", self.close, QKeySequence.StandardKey.Quit, m)
        v = self.menuBar().addMenu("&View")
        v.addAction(self.mel_dock.toggleViewAction())
        v.addAction(self.gpu_dock.toggleViewAction())
        v.addSeparator()
        self.page_actions = [action(self, f"Go to {name}", lambda row=i: self.nav.setCurrentRow(row),
                                    f"Ctrl+{i + 1}", v) for i, name in enumerate(PAGES)]
        build_help_menu(self)

    def _shortcuts(self) -> None:
        """Window-wide keys that are not menu actions; their "what's this" is their Help > Keyboard shortcuts line."""
        def shortcut(keys, slot, what: str) -> QShortcut:
            sc = QShortcut(QKeySequence(keys), self, slot)
            sc.setWhatsThis(what)
            return sc

        run = "Run the page's main action (Start, Speak, Dictate)"
        self.sc_space = shortcut(Qt.Key.Key_Space, self.play_pause, "Play / pause the selection")
        self.sc_run = shortcut("Ctrl+Return", self.run_action, run)
        self.sc_run2 = shortcut("Ctrl+Enter", self.run_action, run)
        self.sc_esc = shortcut(Qt.Key.Key_Escape, self.cancel_action, "Cancel or stop what the page is doing")

    def _add_files(self, folder: bool = False) -> None:
        if paths := pick_inputs(self, folder):
            self.open_paths(paths)

    def open_paths(self, paths) -> int:
        """Queue files/folders on the Transcribe page, show it and add them to File > Open recent; returns how many."""
        paths = [str(p) for p in paths]
        self.nav.setCurrentRow(0)
        n = self.transcribe.add_paths(paths)
        add_recent(paths)
        self._fill_recent()
        return n

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = recent_files()
        for i, path in enumerate(recent):
            a = self.recent_menu.addAction(f"&{(i + 1) % 10} {Path(path).name or path}")
            a.setToolTip(path)
            a.setData(path)
            a.triggered.connect(lambda _=False, p=path: self.open_paths([p]))
        if recent:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear list", lambda: (clear_recent(), self._fill_recent()))
        else:
            self.recent_menu.addAction("(no recent files)").setEnabled(False)

    def open_settings(self):
        """File > Settings…: the Settings dialog (non-modal; returns it)."""
        before = preferences.load()
        dlg = SettingsDialog(self)
        dlg.accepted.connect(lambda: self.apply_preferences(before, preferences.load()))
        dlg.open()
        return dlg

    def apply_preferences(self, old, new) -> list[str]:
        """Push the Settings values that changed (``old`` -> ``new``, ``preferences.Preferences``) into
        the open pages; returns what was applied (e.g. ``["transcribe formats", "dictate device"]``)."""
        done = []
        t = self.transcribe
        if new.formats != old.formats and hasattr(t, "format_checks"):
            for name, check in t.format_checks.items():
                check.setChecked(name in new.formats)
            done.append("transcribe formats")
        if new.output_dir != old.output_dir and hasattr(t, "_set_output_dir"):
            t._set_output_dir(new.output_dir or None)
            done.append("transcribe output folder")
        for page, name in ((t, "transcribe"), (self.dictate, "dictate")):
            if page is None:
                continue
            for key in ("device", "precision"):   # each into the page's device_box / precision_box
                if getattr(new, key) != getattr(old, key) and hasattr(page, f"{key}_box"):
                    getattr(page, f"{key}_box").setCurrentText(getattr(new, key))
                    done.append(f"{name} {key}")
        theme = ""
        if new.theme != old.theme:
            if getattr(self, "models", None) is not None:
                self.models.refresh()  # its status colours follow the theme
            dark = QApplication.palette().window().color().lightness() < 128  # the dialog applied it
            theme = new.theme if new.theme != "system" else f"system ({'dark' if dark else 'light'})"
            done.append(f"theme {theme}")
        if done:  # a theme switch alone says just that ("Theme: dark")
            self.show_status(f"Theme: {theme}" if done == [f"theme {theme}"] else "settings applied: " + ", ".join(done))
        return done

    def _drop_missing_models(self) -> list[str]:
        """Model pickers restored to a folder that no longer exists go back to "(default)", device
        pickers restored to "cuda" without an NVIDIA GPU back to "auto"; returns the notes (also shown)."""
        notes = []
        for page in self.pages():
            box = getattr(page, "model_box", None)
            note = missing_model(box.currentText()) if isinstance(box, ModelPicker) else None
            if note:
                box.setCurrentText(DEFAULT_MODEL)
                notes.append(note)
        cuda = [p.device_box for p in self.pages() if getattr(p, "device_box", None) is not None
                and p.device_box.currentText() == "cuda"]
        if cuda:  # a saved "cuda" on a machine without an NVIDIA GPU (NVML asked; torch is not imported)
            from speechstudio.worker.monitor import sample_gpus

            gpus, reason, _driver = sample_gpus()
            if not gpus:
                for box in cuda:
                    box.setCurrentText("auto")
                notes.append(f"The device saved last time, cuda, is not available ({plain_error(reason)}); "
                             "using auto (CPU).")
        if notes:
            self.show_status(" ".join(dict.fromkeys(notes)))
        return notes

