"""Dictation into any application: spoken commands (:mod:`.commands`, :mod:`.composer`), where the text
goes (:mod:`.sinks`, :mod:`.inject`) and the global hotkey (:mod:`.hotkey`). Qt-free; pynput imported lazily."""
