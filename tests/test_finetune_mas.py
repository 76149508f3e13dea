"""Monotonic alignment search (finetune.vits.mas) against a brute-force search over all paths."""
import itertools

import numpy as np
import torch

from speechstudio.finetune.vits.mas import maximum_path


def all_paths(t_y: int, t_x: int):
    """Every monotonic alignment: token index per frame, starts at 0, ends at t_x - 1, steps 0/1."""
    for steps in itertools.combinations(range(1, t_y), t_x - 1):  # frames where the token advances
        tokens, k = [], 0
        for y in range(t_y):
            if k < len(steps) and steps[k] == y:
                k += 1
            tokens.append(k)
        yield tokens


def brute_force(value: np.ndarray, t_y: int, t_x: int) -> np.ndarray:
    best, best_path = -np.inf, None
    for tokens in all_paths(t_y, t_x):
        score = sum(float(value[y, x]) for y, x in enumerate(tokens))
        if score > best:
            best, best_path = score, tokens
    path = np.zeros(value.shape, dtype=np.int32)
    for y, x in enumerate(best_path):
        path[y, x] = 1
    return path


def random_batch(rng, batch=6, max_t=9, max_s=5):
    t_ys = rng.integers(1, max_t + 1, size=batch)
    t_xs = np.array([rng.integers(1, min(ty, max_s) + 1) for ty in t_ys])
    t_ys[0], t_xs[0] = max_t, max_s  # one full-size item
    value = rng.normal(size=(batch, max_t, max_s)).astype(np.float32) * 3
    mask = np.zeros_like(value)
    for i in range(batch):
        mask[i, : t_ys[i], : t_xs[i]] = 1
    return value, mask, t_ys, t_xs


def test_equals_brute_force_on_random_inputs():
    rng = np.random.default_rng(7)
    for trial in range(25):
        value, mask, t_ys, t_xs = random_batch(rng)
        path = maximum_path(torch.from_numpy(value), torch.from_numpy(mask)).numpy()
        for i in range(len(value)):
            want = np.zeros_like(path[i], dtype=np.int32)
            want[: t_ys[i], : t_xs[i]] = brute_force(value[i, : t_ys[i], : t_xs[i]], t_ys[i], t_xs[i])
            np.testing.assert_array_equal(path[i].astype(np.int32), want, err_msg=f"trial {trial} item {i}")


def test_long_utterances_give_valid_paths_in_the_input_dtype():
    rng = np.random.default_rng(3)
    t_y, t_x = 300, 60
    value = torch.from_numpy(rng.normal(size=(3, t_y, t_x)).astype(np.float32))
    mask = torch.zeros_like(value)
    lengths = [(300, 60), (250, 41), (61, 60)]
    for i, (ty, tx) in enumerate(lengths):
        mask[i, :ty, :tx] = 1
    a = maximum_path(value, mask)
    b = maximum_path(value.double(), mask.double())
    assert a.dtype == torch.float32 and b.dtype == torch.float64
    assert torch.equal(a, b.float())
    for i, (ty, tx) in enumerate(lengths):
        assert a[i].sum().item() == ty  # one token per valid frame
        tokens = a[i, :ty].argmax(1)
        assert tokens[0] == 0 and tokens[-1] == tx - 1
        assert set(torch.diff(tokens).tolist()) <= {0, 1}
        assert a[i, ty:].sum() == 0 and a[i, :, tx:].sum() == 0
