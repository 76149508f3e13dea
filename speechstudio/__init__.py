"""SpeechStudio: offline speech work (transcribe, dictate, speak) on the user's own GPU or CPU.

Qt-free core. Heavy libraries (torch, transformers, faster_whisper) are imported lazily inside
the functions that need them, so ``speechstudio --help`` and the GUI's first window are fast.
"""

__version__ = "0.1.0"
