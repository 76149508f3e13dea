"""Monotonic alignment search (MAS; VITS, Kim et al. 2021, sec. 2.2.1; Glow-TTS, Kim et al. 2020,
sec. 3.2): the monotonic, non-skipping path of text tokens over latent frames that maximises the
flowed posterior's log-likelihood under each token's prior. VITS' Cython ``maximum_path_each`` runs as
``_maximum_path_numba`` (CPU, per utterance; the default) or ``_maximum_path_torch`` (vectorised over
batch and tokens, on the tensor's device, where numba is missing); both reproduce it operation for
operation in float32 (``max_neg_val = -1e9``, the same backtracking ties)."""
from __future__ import annotations

#: Value of cells that cannot be reached (VITS ``core.pyx``: ``max_neg_val=-1e9``).
MAX_NEG = -1e9

_NUMBA_KERNEL = None


def _numba_kernel():
    """Compile (once per process, ~1 s) the VITS Cython loop with numba; None if numba is missing."""
    global _NUMBA_KERNEL
    if _NUMBA_KERNEL is not None:
        return _NUMBA_KERNEL or None
    try:
        import numba
        import numpy as np
    except ImportError:
        _NUMBA_KERNEL = False
        return None

    @numba.njit(nogil=True, cache=False)
    def each(path, value, t_y, t_x):  # pragma: no cover - compiled
        max_neg = np.float32(MAX_NEG)
        index = t_x - 1
        for y in range(t_y):
            for x in range(max(0, t_x + y - t_y), min(t_x, y + 1)):
                if x == y:
                    v_cur = max_neg
                else:
                    v_cur = value[y - 1, x]
                if x == 0:
                    if y == 0:
                        v_prev = np.float32(0.0)
                    else:
                        v_prev = max_neg
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

    _NUMBA_KERNEL = batch
    return batch


def _maximum_path_numba(neg_cent, t_ys, t_xs):
    import numpy as np
    import torch

    kernel = _numba_kernel()
    values = neg_cent.detach().to("cpu", torch.float32).numpy().copy()
    paths = np.zeros(values.shape, dtype=np.int32)
    kernel(paths, values, t_ys.cpu().numpy().astype(np.int32), t_xs.cpu().numpy().astype(np.int32))
    return torch.from_numpy(paths)


def _maximum_path_torch(neg_cent, t_ys, t_xs):
    import torch

    b, t_t, t_s = neg_cent.shape
    device = neg_cent.device
    value = neg_cent.detach().to(torch.float32).clone()
    t_ys = t_ys.to(device=device, dtype=torch.long)
    t_xs = t_xs.to(device=device, dtype=torch.long)
    x = torch.arange(t_s, device=device).unsqueeze(0)  # (1, t_s)
    neg = torch.full((b, 1), MAX_NEG, dtype=torch.float32, device=device)
    # Cells outside the band max(0, t_x + y - t_y) <= x <= y are never read by the recursion;
    # setting them to MAX_NEG makes "stay on x == y" and "come from x - 1 == -1" read MAX_NEG, as
    # the Cython code does explicitly.
    for y in range(t_t):
        in_band = (x <= y) & (x >= (t_xs + y - t_ys).unsqueeze(1)) & (x < t_xs.unsqueeze(1))
        if y == 0:
            # v_prev is 0 at x == 0 and v_cur is MAX_NEG (x == y or out of band): max is v_prev
            best = torch.cat([torch.zeros_like(neg), neg.expand(b, t_s - 1)], 1)
        else:
            cur = value[:, y - 1]
            prev = torch.cat([neg, value[:, y - 1, :-1]], 1)
            best = torch.maximum(prev, cur)
        value[:, y] = torch.where(in_band, value[:, y] + best, torch.full_like(best, MAX_NEG))
    path = torch.zeros((b, t_t, t_s), dtype=torch.int32, device=device)
    index = t_xs - 1
    rows = torch.arange(b, device=device)
    for y in range(t_t - 1, -1, -1):
        active = y < t_ys
        path[rows[active], y, index[active]] = 1
        if y == 0:
            break
        here = value[rows, y - 1, index]
        left = value[rows, y - 1, (index - 1).clamp_min(0)]
        move = active & (index != 0) & ((index == y) | (here < left))
        index = index - move.long()
    return path


def maximum_path(neg_cent, mask, backend: str = "auto"):
    """Most likely monotonic alignment of tokens to frames (VITS ``monotonic_align.maximum_path``).

    ``neg_cent``: ``torch.Tensor`` (batch, t_frames, t_tokens), log-likelihood of frame t under
    token s's prior (any float dtype; searched in float32). ``mask``: same shape, 1 where both
    the frame and the token are valid (``x_mask * y_mask``), padding 0; each utterance needs
    frames >= tokens. ``backend``: ``"auto"`` (numba if installed, else torch), ``"numba"`` or
    ``"torch"``. Returns a (batch, t_frames, t_tokens) tensor of 0/1 in ``neg_cent``'s dtype and on
    its device: exactly one 1 per valid frame, token index non-decreasing in steps of 0 or 1,
    starting at token 0 and ending at the last token.
    """
    t_ys = mask.sum(1)[:, 0].long()
    t_xs = mask.sum(2)[:, 0].long()
    if backend not in ("auto", "numba", "torch"):
        raise ValueError(f"unknown MAS backend {backend!r}")
    kernel = _numba_kernel() if backend in ("auto", "numba") else None
    if backend == "numba" and kernel is None:
        raise ImportError("numba is not installed: use backend='torch'")
    if kernel is not None:
        path = _maximum_path_numba(neg_cent, t_ys, t_xs)
    else:
        path = _maximum_path_torch(neg_cent, t_ys, t_xs)
    return path.to(device=neg_cent.device, dtype=neg_cent.dtype)
