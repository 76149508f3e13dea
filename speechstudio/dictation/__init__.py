"""Dictation into any application: spoken commands and punctuation (:mod:`.commands`,
:mod:`.composer`), where the text goes (:mod:`.sinks`: type, paste, clipboard, stdout; key
injection and clipboard backends in :mod:`.inject`), and the global hotkey (:mod:`.hotkey`).

Qt-free; pynput and pyperclip are imported lazily (pynput cannot even be imported on Linux
without an X display)."""
