"""``speechstudio doctor``: checks this computer's setup and says what is and is not there.

Qt-free. Each check returns a :class:`~speechstudio.doctor.report.Check` (verdict ``ok``, ``info``,
``warn`` or ``fail``, a one-line summary, the fix command, details for ``--json``); a failing
check never stops the others. Usage::

    from speechstudio.doctor import run_checks
    checks = run_checks(network=False)      # about a second; network=True adds <= 3 s
"""
from __future__ import annotations

import logging
from typing import Callable

from speechstudio.doctor.report import FAIL, Check, failed, to_json, to_text

__all__ = ["Check", "CHECKS", "run_checks", "failed", "to_json", "to_text"]
log = logging.getLogger(__name__)


def _checks() -> list[tuple[str, Callable[[], Check]]]:
    from speechstudio.doctor.audio import check_audio
    from speechstudio.doctor.display import check_display
    from speechstudio.doctor.environment import check_python
    from speechstudio.doctor.gpu import check_gpu
    from speechstudio.doctor.models import check_models, check_voices
    from speechstudio.doctor.network import check_network
    from speechstudio.doctor.storage import check_folders

    return [("Python", check_python), ("PyTorch and GPU", check_gpu), ("Sound (PortAudio)", check_audio),
            ("Window (Qt)", check_display), ("Models", check_models), ("Voices", check_voices),
            ("Folders", check_folders), ("Network", check_network)]


CHECKS = ("Python", "PyTorch and GPU", "Sound (PortAudio)", "Window (Qt)", "Models", "Voices", "Folders", "Network")


def run_checks(*, network: bool = True, on_check: Callable[[Check], None] | None = None) -> list[Check]:
    """Run every check in :data:`CHECKS` order and return their verdicts.

    Args:
        network: include the Hugging Face reachability check (at most 3 s; no request when
            ``HF_HUB_OFFLINE=1``).
        on_check: called with each verdict as soon as it is known (the GUI fills its list with it).

    A check that crashes becomes a ``fail`` verdict naming the exception (the others still run).
    """
    out: list[Check] = []
    for name, fn in _checks():
        if name == "Network" and not network:
            continue
        try:
            check = fn()
        except Exception as e:  # a doctor must not die of the disease it looks for
            log.debug("doctor check %s crashed", name, exc_info=True)
            check = Check(name, FAIL, f"the check itself failed: {type(e).__name__}: {e}",
                          "speechstudio doctor --debug, and report the traceback")
        out.append(check)
        if on_check is not None:
            on_check(check)
    return out
