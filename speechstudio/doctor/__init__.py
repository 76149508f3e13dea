"""``speechstudio doctor``: checks this computer's setup and says what is and is not there (Qt-free);
``run_checks(network=False)`` takes about a second."""
from __future__ import annotations

import logging
from typing import Callable

from speechstudio.doctor import audio, display, environment, gpu, models, network, storage
from speechstudio.doctor.report import FAIL, Check

log = logging.getLogger(__name__)

#: the checks in order: (title, module, function), the function looked up when the checks run
_CHECKS = (("Python", environment, "check_python"), ("PyTorch and GPU", gpu, "check_gpu"),
           ("Sound (PortAudio)", audio, "check_audio"), ("Window (Qt)", display, "check_display"),
           ("Models", models, "check_models"), ("Voices", models, "check_voices"),
           ("Folders", storage, "check_folders"), ("Network", network, "check_network"))
CHECKS = tuple(name for name, _, _ in _CHECKS)


def run_checks(*, network: bool = True, on_check: Callable[[Check], None] | None = None) -> list[Check]:
    """Run :data:`CHECKS` in order (``network``: Hugging Face reachability, <= 3 s); ``on_check(verdict)`` as
    each is known; a crashing check is a ``fail`` naming the exception."""
    out: list[Check] = []
    for name, module, fn in _CHECKS:
        if name == "Network" and not network:
            continue
        try:
            check = getattr(module, fn)()
        except Exception as e:  # a doctor must not die of the disease it looks for
            log.debug("doctor check %s crashed", name, exc_info=True)
            cause = f"{type(e).__name__}: {e}"  # in details too: an interface may leave the raw cause out
            check = Check(name, FAIL, f"the check itself failed ({cause})",
                          "speechstudio doctor --debug, and report the traceback", {"error": cause})
        out.append(check)
        if on_check is not None:
            on_check(check)
    return out
