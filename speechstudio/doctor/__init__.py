"""``speechstudio doctor``: checks this computer's setup and says what is and is not there (Qt-free);
``run_checks(network=False)`` takes about a second."""
from __future__ import annotations

import logging
from typing import Callable

from speechstudio.doctor.report import FAIL, Check, failed, to_json, to_text

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
    """Run :data:`CHECKS` in order (``network``: Hugging Face reachability, <= 3 s); ``on_check(verdict)`` as
    each is known; a crashing check is a ``fail`` naming the exception."""
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
