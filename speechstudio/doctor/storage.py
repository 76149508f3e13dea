"""Folders: write access (a probe file in the nearest existing parent; ``os.access`` says yes to root on a read-only
mount) and free space (warn below :data:`LOW_SPACE_BYTES`) of the data folder and the Hugging Face cache."""
from __future__ import annotations

import shutil

from speechstudio.atomic import folder_problem, nearest_existing
from speechstudio.disk import format_size
from speechstudio.doctor.report import FAIL, OK, WARN, Check
from speechstudio.hub.paths import data_dir, hf_cache_dir

LOW_SPACE_BYTES = 2 * 10**9


def check_folders() -> Check:
    """Write access and free space of the data folder (``SPEECHSTUDIO_HOME``) and the HF cache."""
    folders = {"data": (data_dir(), "SPEECHSTUDIO_HOME"), "cache": (hf_cache_dir(), "HF_HOME")}
    details: dict = {}
    parts, problems, fixes, low = [], [], [], []
    for label, (path, var) in folders.items():
        free = shutil.disk_usage(nearest_existing(path)).free
        problem = folder_problem(path)
        details[label] = {"path": str(path), "free_bytes": free, "writable": problem is None}
        parts.append(f"{label} {path} ({format_size(free)} free)")
        if problem:
            problems.append(f"{label} folder: {problem}")
            fixes.append(f"sudo chown -R $USER '{nearest_existing(path)}' (or choose a writable folder: "
                         f"export {var}=$HOME/speechstudio-data)")
        elif free < LOW_SPACE_BYTES:
            low.append(f"only {format_size(free)} free for the {label} folder")
    summary = "; ".join(parts)
    if problems:
        return Check("Folders", FAIL, f"{summary}: " + "; ".join(problems), "; ".join(dict.fromkeys(fixes)), details)
    if low:
        return Check("Folders", WARN, f"{summary}: " + "; ".join(low),
                     "free some disk space (speechstudio models list shows what models take)", details)
    return Check("Folders", OK, summary + "; writable", "", details)
