"""Dictate into any application: where the text goes (this window, typed, pasted, clipboard), spoken
commands, the captions window, the global hotkey, the tray icon and a sound cue (settings ``dictate/``)."""
from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QCheckBox, QLabel, QSystemTrayIcon, QWidget

from speechstudio.asr.family import capabilities
from speechstudio.dictation.hotkey import DEFAULT_HOTKEY, Hotkey
from speechstudio.errors import SpeechStudioError
from speechstudio.gui.captions import CaptionsWindow
from speechstudio.gui.common import bare, button, combo, hrow, line_edit, named, settings, vbox
from speechstudio.gui.single_instance import bring_to_front
from speechstudio.gui.tray import DictationTray, cue_tone

OUTPUTS = (("app", "This window only"), ("type", "Type into the focused app"),
           ("paste", "Paste into the focused app"), ("clipboard", "Copy to the clipboard"))


class AnywherePanel(QWidget):
    """Signals (queued into the GUI thread from the hotkey / remote-control threads):
    ``start_requested``, ``stop_requested``, ``toggle_requested``; ``status_message(str)``;
    ``output_failed(str)`` (from the output thread)."""

    start_requested = Signal()
    stop_requested = Signal()
    toggle_requested = Signal()
    status_message = Signal(str)
    output_failed = Signal(str)

    def __init__(self, page) -> None:
        super().__init__()
        self.page = page
        self.captions = None          # CaptionsWindow, created when first shown
        self.tray = None              # DictationTray while the hotkey is on and a tray exists
        self.hotkey = None            # speechstudio.dictation.hotkey.Hotkey
        self.control = None           # speechstudio.dictation.control.ControlServer
        self.composer = None
        self.output = None            # OutputThread for the session
        self.session_mode = "app"
        self.problem = ""             # why this session's text stays in the page ("" = it does not)
        self.message = ""
        self._restoring = True
        self._build()
        self._restore()
        self._restoring = False
        self.start_requested.connect(lambda: None if page.running else page.start())
        self.stop_requested.connect(lambda: page.stop())
        self.toggle_requested.connect(lambda: page.toggle())
        self.output_failed.connect(self._on_output_failed)

    def _build(self) -> None:
        self.output_box = combo("Dictation output", [(label, mode) for mode, label in OUTPUTS],
                                "Type or paste the stable text where the cursor is in the application that has the "
                                "focus (start with the hotkey while you work there), or keep it on the clipboard")
        self.shortcut_box = combo("Paste shortcut", ["ctrl+v", "ctrl+shift+v", "shift+insert"],
                                  "The target's paste shortcut (terminals: Ctrl+Shift+V or Shift+Insert)")
        self.commands_check = named(QCheckBox("Spoken commands"), "", "\"comma\", \"period\", \"new line\", "
                                    "\"new paragraph\", \"scratch that\", \"stop dictating\"... (per language, editable)")
        self.edit_btn = button("Edit…", "Edit spoken commands", slot=self.edit_commands)
        output = hrow(QLabel("Text goes to"), self.output_box, self.shortcut_box, self.commands_check, self.edit_btn)
        self.captions_check = named(QCheckBox("Live captions"), "Show live captions", "A window on top of everything "
                                    "with the live text (drag to move; wheel: text size, Ctrl+wheel: opacity, "
                                    "Shift+wheel: width)")
        self.hotkey_check = named(QCheckBox("Global hotkey"), "Global dictation hotkey", "Start and stop dictation "
                                  "from any application; also shows the tray icon. On Wayland bind a desktop shortcut "
                                  "to `speechstudio dictate --toggle`")
        self.hotkey_edit = line_edit("Hotkey keys", "ctrl+alt+d")
        self.hotkey_edit.setMaximumWidth(130)
        self.hotkey_mode = combo("Hotkey mode", [("toggle", "toggle"), ("push to talk", "push_to_talk")])
        self.cue_check = named(QCheckBox("Sound cue"), "",
                               "A short tone when dictation starts and stops (with the global hotkey on)")
        bare(vbox(self, output, hrow(self.captions_check, self.hotkey_check, self.hotkey_edit, self.hotkey_mode,
                                     self.cue_check)))
        for changed in (self.output_box.currentIndexChanged, self.shortcut_box.currentIndexChanged,
                        self.commands_check.toggled, self.cue_check.toggled):
            changed.connect(self._changed)
        self.captions_check.toggled.connect(self.show_captions)
        self.hotkey_check.toggled.connect(self.enable_hotkey)
        self.hotkey_edit.editingFinished.connect(self._hotkey_changed)
        self.hotkey_mode.currentIndexChanged.connect(self._hotkey_changed)

    def _restore(self) -> None:
        s = settings()
        self.output_box.setCurrentIndex(max(0, self.output_box.findData(str(s.value("dictate/output", "app")))))
        self.shortcut_box.setCurrentText(str(s.value("dictate/paste_shortcut", "ctrl+v")))
        self.hotkey_edit.setText(str(s.value("dictate/hotkey", DEFAULT_HOTKEY)))
        self.hotkey_mode.setCurrentIndex(max(0, self.hotkey_mode.findData(str(s.value("dictate/hotkey_mode", "toggle")))))
        self.shortcut_box.setVisible(self.mode == "paste")
        for key, check, default in self._checks():
            check.setChecked(s.value(f"dictate/{key}", default, type=bool))

    def _checks(self):
        """``(settings key, check box, default)`` of the panel's on/off settings."""
        return (("commands", self.commands_check, True), ("sound_cue", self.cue_check, True),
                ("captions", self.captions_check, False), ("hotkey_enabled", self.hotkey_check, False))

    def save_settings(self) -> None:
        if self._restoring:
            return
        s = settings()
        s.setValue("dictate/output", self.mode)
        s.setValue("dictate/paste_shortcut", self.shortcut_box.currentText())
        for key, check, _default in self._checks():
            s.setValue(f"dictate/{key}", check.isChecked())
        s.setValue("dictate/hotkey", self.hotkey_edit.text().strip())
        s.setValue("dictate/hotkey_mode", self.hotkey_mode.currentData())

    def _changed(self) -> None:
        self.shortcut_box.setVisible(self.mode == "paste")
        self.save_settings()

    @property
    def mode(self) -> str:
        return str(self.output_box.currentData())

    def _note(self, message: str) -> None:
        self.message = message
        self.status_message.emit(message)

    def open_output(self) -> str:
        """Before the job starts: open the chosen output; returns "" or what is missing (the text then stays here)."""
        from speechstudio.dictation.sinks import OutputThread, open_sink
        self.session_mode, self.output, self.problem = "app", None, ""
        try:
            sink = open_sink(self.mode, paste_shortcut=self.shortcut_box.currentText())
        except SpeechStudioError as e:
            self.problem = str(e)
            self._note(f"text stays in this window: {e}")
            if self.tray is not None:
                self.tray.notify(str(e))
            return str(e)
        if sink is not None:
            self.session_mode = self.mode
            self.output = OutputThread(sink, on_error=self.output_failed.emit, wait_while=self._hotkey_held)
        return ""

    def session_started(self, engine: str, language: str | None) -> None:
        from speechstudio.dictation.commands import CommandTable, CommandTableError
        from speechstudio.dictation.composer import Composer

        commands = ()
        if self.commands_check.isChecked():
            try:
                commands = CommandTable.load().for_language(language)
            except CommandTableError as e:
                self._note(f"spoken commands off: {e}")
        self.composer = Composer(commands, casing="keep" if capabilities(engine).casing else "sentence")
        if self.captions is not None and self.captions_check.isChecked():
            self.captions.setVisible(True)  # hidden when the last session stopped
        if self.tray is not None:
            self.tray.set_state("listening", f"text goes to: {self.output_box.currentText().lower()}")
        self._cue(True)

    def on_update(self, u) -> None:
        if self.composer is None:
            return
        edit = self.composer.feed(u)
        if self.output is not None:
            self.output.put(edit)
        self._show_captions(u.tail_text)
        if self.composer.stop_requested and self.page.running:
            self.page.stop()

    def session_finished(self, failed: str = "") -> None:
        if self.composer is not None and self.output is not None:
            self.output.put(self.composer.flush())
        if self.output is not None:
            self.output.finish()       # the thread drains the queue and ends; the window is not blocked
        self.output = None
        if self.captions is not None:  # the overlay does not stay on top after dictation stops
            self.captions.hide()
        if self.tray is not None:
            self.tray.set_state("error" if failed else "idle", failed)
        if self.composer is not None:
            self._cue(False)
        self.composer = None

    def _hotkey_held(self) -> bool:
        hk = self.hotkey
        return hk is not None and hk.held

    def _on_output_failed(self, message: str) -> None:
        self._note(f"cannot put the text into the other application: {message}; it stays in this window")
        if self.tray is not None:
            self.tray.set_state("error", message)
            self.tray.notify(message)

    def _cue(self, start: bool) -> None:
        """The start/stop tone, while the global hotkey is on (the user may not see the window)."""
        if not (self.cue_check.isChecked() and self.hotkey_check.isChecked()):
            return
        try:
            self.page.audio.play(cue_tone(start), 16000)
        except Exception:  # noqa: BLE001 - no output device: no cue
            pass

    def show_captions(self, on: bool) -> None:
        if on and self.captions is None:
            self.captions = CaptionsWindow()
            self.captions.hidden_by_user.connect(lambda: self.captions_check.setChecked(False))
        if self.captions is not None:
            self.captions.setVisible(on)
            if on:
                self._show_captions(self.page.tail_text)
        if self.tray is not None:
            self.tray.set_captions_checked(on)
        self.save_settings()

    def _show_captions(self, tail: str) -> None:
        if self.captions is None or not self.captions.isVisible():
            return
        stable = self.composer.text if self.composer is not None else self.page.text
        held = self.composer.held if self.composer is not None else ""
        self.captions.set_text(stable.replace("\n", " "), " ".join(p for p in (held, tail) if p))

    def enable_hotkey(self, on: bool, listener_factory=None) -> str:
        """Start or stop the global hotkey, the tray icon and the remote toggle; returns "" or what is missing."""
        self._stop_hotkey()
        problem = ""
        if on:
            self._start_tray()
            self._start_control()
            spec = self.hotkey_edit.text().strip() or "ctrl+alt+d"
            try:
                self.hotkey = Hotkey(spec, self.start_requested.emit, self.stop_requested.emit,
                                     mode=str(self.hotkey_mode.currentData()), is_active=lambda: self.page.running,
                                     listener_factory=listener_factory)
                self.hotkey.start()
                self._note(f"hotkey {spec} ({self.hotkey_mode.currentText()}) starts and stops dictation "
                           "from any application")
            except SpeechStudioError as e:
                self.hotkey, problem = None, str(e)
                self._note(problem)
                if self.tray is not None:
                    self.tray.set_state("error", problem)
                with QSignalBlocker(self.hotkey_check):     # it stayed ticked; the saved wish stays for a desktop
                    self.hotkey_check.setChecked(False)
                self.hotkey_check.setToolTip(f"not set: {problem}")
                return problem
        self.save_settings()
        return problem

    def _hotkey_changed(self) -> None:
        if self.hotkey_check.isChecked():
            self.enable_hotkey(True)
        else:
            self.save_settings()

    def _stop_hotkey(self) -> None:
        if self.hotkey is not None:
            self.hotkey.stop()
            self.hotkey = None
        if self.tray is not None:
            self.tray.hide()
            self.tray = None
        if self.control is not None:
            self.control.close()
            self.control = None

    def _start_tray(self) -> None:
        if not QSystemTrayIcon.isSystemTrayAvailable():  # the desktop has no tray (notification area)
            self._note("no system tray on this desktop: the hotkey works without the tray icon")
            return
        self.tray = DictationTray(self)
        self.tray.toggle_requested.connect(self.toggle_requested.emit)
        self.tray.captions_toggled.connect(self.captions_check.setChecked)
        self.tray.show_requested.connect(self._show_window)
        self.tray.quit_requested.connect(lambda: self.page.window().close())
        self.tray.set_captions_checked(self.captions_check.isChecked())
        self.tray.set_state("listening" if self.page.running else "idle")
        self.tray.show()

    def _start_control(self) -> None:
        from speechstudio.dictation.control import ControlServer

        def handle(cmd: str) -> str:
            starting = not self.page.running if cmd == "toggle" else cmd == "start"
            {"toggle": self.toggle_requested, "start": self.start_requested}.get(cmd, self.stop_requested).emit()
            return "dictation starting" if starting else "dictation stopping"

        try:
            self.control = ControlServer(handle)
        except Exception as e:  # noqa: BLE001 - another instance, a path too long: the hotkey still works
            self.control = None
            self.status_message.emit(f"`speechstudio dictate --toggle` unavailable: {e}")

    def _show_window(self) -> None:
        bring_to_front(self.page.window())

    def edit_commands(self) -> None:
        from speechstudio.gui.commands_dialog import CommandsDialog

        CommandsDialog(self, language=self.page.language_options.language() or "en").exec()

    def shutdown(self) -> None:
        """Stop the hotkey listener, the remote toggle, the tray and the captions window."""
        self._stop_hotkey()
        if self.captions is not None:
            self.captions.close()
            self.captions = None
