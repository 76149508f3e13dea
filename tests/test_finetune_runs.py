"""The wizards' run lists: voice-cloning and recognition runs share one runs folder, and each
wizard lists only its own kind (a CTC run opened in Clone voice used to fail with 'config.json
unreadable')."""
import json

from speechstudio.worker.adapt_jobs import list_adapt_runs
from speechstudio.worker.finetune_jobs import list_runs, runs_dir


def _run(name: str, config: dict | None, resumable: bool = False):
    d = runs_dir() / name
    (d / "checkpoints").mkdir(parents=True)
    if config is not None:
        (d / "config.json").write_text(json.dumps(config), encoding="utf-8")
    if resumable:
        (d / "checkpoints" / "latest.pt").write_bytes(b"x")
    return d


def test_each_wizard_lists_only_its_own_runs(home):
    _run("myvoice", {"trainer": "vits", "train": {}, "base": {}, "dataset": {"path": "/d"}}, resumable=True)
    _run("mywords", {"dataset": "/data/words", "vocab_source": "data", "base": "tiny", "train": {}}, resumable=True)
    _run("starting", None)  # a voice run whose config.json is not written yet
    (runs_dir() / "broken").mkdir()
    (runs_dir() / "broken" / "config.json").write_text("{not json", encoding="utf-8")
    voice = {r.name: r.resumable for r in list_runs()}
    assert voice == {"myvoice": True, "starting": False, "broken": False}
    adapt = list_adapt_runs()
    assert [(r.name, r.resumable, r.config["dataset"]) for r in adapt] == [("mywords", True, "/data/words")]


def test_no_runs_folder_lists_nothing(home):
    assert list_runs() == [] and list_adapt_runs() == []
