"""Speech synthesis (Qt-free; torch, transformers, onnxruntime imported inside functions). Entry points:
``tts.family.load_voice``, ``tts.stream.stream_speech``, ``tts.output.write_speech``,
``tts.voices.resolve_voice``, ``tts.cli.register``. See docs/tts.md."""
