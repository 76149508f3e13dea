"""GUIDE.md's layers: the core (everything below gui/, the engine's job modules included) runs
without Qt, so the CLI, the library API and the tests of the core never load PySide6."""
import subprocess
import sys

import pytest

CORE = ["speechstudio.cli", "speechstudio.api", "speechstudio.engine.status", "speechstudio.engine.jobs",
        "speechstudio.engine.dictation", "speechstudio.engine.finetune_jobs", "speechstudio.engine.adapt_jobs",
        "speechstudio.finetune.voice_run", "speechstudio.finetune.ctc", "speechstudio.asr.live"]


@pytest.mark.parametrize("module", CORE)
def test_core_module_loads_without_qt(module):
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith('PySide6')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
