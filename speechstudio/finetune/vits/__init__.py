"""VITS voice fine-tuning ("clone my voice"), Qt-free; ``trainer.train_voice`` is the entry point and
re-exports the public names. Heavy imports happen in the submodules, never here."""
