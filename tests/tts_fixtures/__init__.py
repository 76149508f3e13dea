"""Helpers shared by the TTS tests: tiny VITS checkpoints built from a config, the joe voice."""
