"""History and watched folders, a mixin of the Transcribe page (uses ``keeper``, ``watcher``,
``watch_menu``, ``watch_btn``, ``watch_timer``, ``add_paths`` and ``start``)."""
from __future__ import annotations

from pathlib import Path

from speechstudio.batch.subtitles import SubtitleOptions
from speechstudio.gui import preferences
from speechstudio.gui.common import asker, settings
from speechstudio.gui.drop_paths import display_name
from speechstudio.gui.history_dialog import HistoryDialog


class TranscribeWatchMixin:
    """History window and watched folders."""

    def show_history(self):
        """Open the History window (past jobs from the queue database)."""
        if self.keeper.store is None:
            self.status_message.emit(self.keeper.problem)
            return None
        self.history = HistoryDialog(self.keeper.store, self)
        self.history.status_message.connect(self.status_message)
        self.history.show()
        return self.history

    def watch_folder(self, folder: str, output_dir: str | None = None) -> None:
        """Watch ``folder``: audio/video files that arrive in it are queued once they stop growing
        and transcribed (outputs next to them, or in ``output_dir``)."""
        if self.watcher is None:
            self.status_message.emit(self.keeper.problem)
            return
        self.watcher.watch(folder, output_dir)
        self._fill_watch_menu()
        self.status_message.emit(f"watching {display_name(folder, full=True)}")

    def unwatch(self, watch_id: int) -> None:
        self.keeper.store.remove_watch(watch_id)
        self._fill_watch_menu()

    def poll_watched(self) -> int:
        """Queue the files that settled in watched folders (and start when idle); returns how many."""
        if self.watcher is None:
            return 0
        n = 0
        for folder, path in self.watcher.poll():
            n += self.add_paths([path], output_dir=folder.output_dir, watch_id=folder.id)
        if n and self.job is None:
            self.start()
        return n

    def _fill_watch_menu(self) -> None:
        self.watch_menu.clear()
        self.watch_menu.addAction("Watch a folder…", asker(self, "Watch a folder", lambda d: self.watch_folder(
            d, self.output_dir), start=lambda: settings().value("last_dir", Path.home())))
        folders = self.keeper.store.watched() if self.keeper.store is not None else []
        for w in folders:
            self.watch_menu.addAction(f"Stop watching {display_name(w.folder, full=True)}",
                                      lambda wid=w.id: self.unwatch(wid))
        self.watch_btn.setText(f"Watched folders ({len(folders)})" if folders else "Watched folders")
        if folders and not self.watch_timer.isActive():
            self.watch_timer.start(self.watch_interval_ms)
        elif not folders:
            self.watch_timer.stop()


def subtitle_options() -> SubtitleOptions:
    """Subtitle layout from the Settings dialog (0 = no limit)."""
    prefs = preferences.load()
    return SubtitleOptions(max_line_width=prefs.subtitle_max_line_width, max_line_count=prefs.subtitle_max_line_count)
