"""Monotonic alignment search (MAS; VITS, Kim et al. 2021, sec. 2.2.1; Glow-TTS, Kim et al. 2020,
sec. 3.2): the monotonic, non-skipping path of text tokens over latent frames that maximises the
flowed posterior's log-likelihood under each token's prior. VITS' Cython ``maximum_path_each`` runs
compiled by numba (a dependency; CPU, per utterance), operation for operation in float32
(``max_neg_val = -1e9``, the same backtracking ties)."""
from __future__ import annotations

import functools

#: Value of cells that cannot be reached (VITS ``core.pyx``: ``max_neg_val=-1e9``).
MAX_NEG = -1e9


@functools.lru_cache(maxsize=1)
def _numba_kernel():
    """Compile (once per process, ~1 s) the VITS Cython loop with numba."""
    import numba
    import numpy as np

    @numba.njit(nogil=True, cache=False)
    def each(path, value, t_y, t_x):  # pragma: no cover - compiled
        max_neg = np.float32(MAX_NEG)
        index = t_x - 1
        for y in range(t_y):
            for x in range(max(0, t_x + y - t_y), min(t_x, y + 1)):
                v_cur = max_neg if x == y else value[y - 1, x]
                if x == 0:
                    v_prev = np.float32(0.0) if y == 0 else max_neg
                else:
                    v_prev = value[y - 1, x - 1]
                value[y, x] += max(v_prev, v_cur)
        for y in range(t_y - 1, -1, -1):
            path[y, index] = 1
            if index != 0 and (index == y or value[y - 1, index] < value[y - 1, index - 1]):
                index = index - 1

    @numba.njit(nogil=True, cache=False)
    def batch(paths, values, t_ys, t_xs):  # pragma: no cover - compiled
        for i in range(paths.shape[0]):
            each(paths[i], values[i], t_ys[i], t_xs[i])

    return batch


def maximum_path(neg_cent, mask):
    """Most likely monotonic alignment of tokens to frames (VITS ``monotonic_align.maximum_path``).

    ``neg_cent``: ``torch.Tensor`` (batch, t_frames, t_tokens), log-likelihood of frame t under
    token s's prior (any float dtype; searched in float32). ``mask``: same shape, 1 where both
    the frame and the token are valid (``x_mask * y_mask``), padding 0; each utterance needs
    frames >= tokens. Returns a (batch, t_frames, t_tokens) tensor of 0/1 in ``neg_cent``'s dtype and on
    its device: exactly one 1 per valid frame, token index non-decreasing in steps of 0 or 1,
    starting at token 0 and ending at the last token.
    """
    import numpy as np
    import torch

    t_ys = mask.sum(1)[:, 0].long()
    t_xs = mask.sum(2)[:, 0].long()
    values = neg_cent.detach().to("cpu", torch.float32).numpy().copy()
    paths = np.zeros(values.shape, dtype=np.int32)
    _numba_kernel()(paths, values, t_ys.cpu().numpy().astype(np.int32), t_xs.cpu().numpy().astype(np.int32))
    return torch.from_numpy(paths).to(device=neg_cent.device, dtype=neg_cent.dtype)
