"""Model families by name (recognisers, diarizers, voices): built-in modules (each with ``FAMILY``)
imported on first use; a plug-in or a test adds one with :meth:`Registry.register`."""
from __future__ import annotations

import importlib

from speechstudio.errors import ModelNotFoundError


class Registry:
    """Families by ``name`` in registration order (built-ins first): ``what`` names them in messages,
    ``builtin`` lists modules each with a ``FAMILY``."""

    def __init__(self, what: str, builtin: tuple[str, ...]) -> None:
        self.what, self.builtin = what, builtin
        self._items: dict[str, object] = {}
        self._loaded = False

    def _families(self) -> dict[str, object]:
        """The families by name, the built-ins imported on first use."""
        if not self._loaded:
            self._loaded = True
            for module in self.builtin:
                self.register(importlib.import_module(module).FAMILY, replace=True)
        return self._items

    def register(self, family, *, replace: bool = False):
        """Add ``family`` and return it. Raises ``ValueError`` when its name is taken and ``replace`` is false."""
        families = self._families()
        if family.name in families and not replace:
            raise ValueError(f"a {self.what} named {family.name!r} is already registered")
        families[family.name] = family
        return family

    def unregister(self, name: str) -> None:
        """Remove ``name`` (a test's fake family); unknown names are ignored."""
        self._families().pop(name, None)

    def all(self) -> list:
        """The families, in registration order."""
        return list(self._families().values())

    def find(self, name: str | None):
        """The family ``name``, ``None`` when there is none."""
        return self._families().get(name or "")

    def get(self, name: str):
        """The family ``name``. Raises ``ModelNotFoundError`` naming the known ones."""
        family = self.find(name)
        if family is None:
            raise ModelNotFoundError(f"unknown {self.what} {name!r} (known: {', '.join(self.names())})")
        return family

    def names(self) -> list[str]:
        return list(self._families())


#: Speech-recognition families (:mod:`speechstudio.asr.family`), here so the model store can ask them
#: which family a folder is without importing ``asr``.
RECOGNISERS = Registry("recogniser family", ("speechstudio.asr.family_whisper", "speechstudio.asr.family_ctc"))
