"""Hugging Face Hub reachability: one HEAD request with a deadline, none in offline mode
(``HF_HUB_OFFLINE=1``). Installed models never need the network; only downloads do."""
from __future__ import annotations

from speechstudio.doctor.report import INFO, OK, WARN, Check
from speechstudio.hub import download

TIMEOUT_S = 3.0
NAME = "Network"


def check_network(timeout_s: float = TIMEOUT_S) -> Check:
    """``ok`` when the Hub answers within ``timeout_s`` seconds, ``info`` in offline mode (no request
    made), ``warn`` when unreachable (downloads fail; installed models still work)."""
    endpoint = download.hub_endpoint()
    if download.hub_offline():
        return Check(NAME, INFO, "offline mode (HF_HUB_OFFLINE=1): no request made; downloads are off",
                     "", {"endpoint": endpoint, "offline": True})
    reachable, reason = download.hub_reachable(timeout_s)
    details = {"endpoint": endpoint, "offline": False, "reachable": reachable, "reason": reason}
    if reachable:
        return Check(NAME, OK, f"{endpoint} answers", "", details)
    return Check(NAME, WARN, f"{endpoint} unreachable ({reason}): downloads fail, installed models work",
                 "check the connection or proxy (export HTTPS_PROXY=http://host:port), or stay offline: "
                 "export HF_HUB_OFFLINE=1 and import models with speechstudio models import DIR", details)
