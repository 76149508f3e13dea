"""Speech synthesis: VITS voices (transformers ``VitsModel``, imported Piper voices) in PyTorch.

Qt-free. Heavy imports (torch, transformers, onnx) happen inside the functions that need them.
Entry points: ``speechstudio.tts.family.load_voice``, ``speechstudio.tts.stream.stream_speech`` /
``write_stream``, ``speechstudio.tts.voices.resolve_voice``, ``speechstudio.tts.cli.register``.
See docs/tts.md.
"""
