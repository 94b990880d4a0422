"""The accelerator's host driver (issue 52): the tokens it derives order every conflicting pair of commands and never
deadlock, under any unit timing; tiles, layouts and the im2col lowering, without a simulator."""

import numpy as np
import pytest

from accelgen.cosim.accel_host import Command, conv_im2col, pack_lines, plan_gemm, resolve_tokens, unpack_lines
from accelgen.errors import ConfigError
from accelgen.params.accel import AccelParams, decode
from accelgen.params.systolic import SystolicParams

PARAMS = AccelParams(array=SystolicParams(rows=4, cols=4), sp_lines=64, sp_banks=2, acc_lines=16, acc_banks=2)
_POPS = {"load": {"pop_next": "c2l"}, "execute": {"pop_prev": "l2c", "pop_next": "s2c"}, "store": {"pop_prev": "c2s"}}
_PUSHES = {"load": {"push_next": "l2c"}, "execute": {"push_prev": "c2l", "push_next": "c2s"},
           "store": {"push_prev": "s2c"}}


def simulate(commands: list[Command], words: list[int], rng) -> list[tuple[float, float]]:
    """Run the three in-order units with token counters and random command durations; ``(start, end)`` of each
    command (a unit starts a command when it is free and every token it waits for is there, takes them, and gives its
    tokens as the command ends). Fails on a deadlock."""
    flags = [decode(w)[1] for w in words]
    queues = {u: [i for i, c in enumerate(commands) if c.unit == u] for u in _POPS}
    tokens = dict.fromkeys(("l2c", "c2l", "c2s", "s2c"), 0)
    free_at = dict.fromkeys(queues, 0.0)
    times = [None] * len(commands)
    pending = []   # (end, index): tokens given at the end
    now = 0.0
    while any(queues.values()) or pending:
        started = False
        for unit, queue in queues.items():
            if queue and free_at[unit] <= now:
                i = queue[0]
                need = [tok for flag, tok in _POPS[unit].items() if flags[i].get(flag)]
                if all(tokens[t] > 0 for t in need):
                    for t in need:
                        tokens[t] -= 1
                    end = now + rng.uniform(0.5, 10.0)
                    times[i] = (now, end)
                    free_at[unit] = end
                    pending.append((end, i))
                    queue.pop(0)
                    started = True
        if started:
            continue
        assert pending, f"deadlock: queues {queues}, tokens {tokens}"
        pending.sort()
        end, i = pending.pop(0)
        now = max(now, end)
        for flag, tok in _PUSHES[commands[i].unit].items():
            tokens[tok] += flags[i].get(flag, 0)
    return times


def conflicts(a: Command, b: Command) -> bool:
    for mem in ("sp", "acc"):
        for x, y in (("writes", "reads"), ("reads", "writes"), ("writes", "writes")):
            for a0, a1 in getattr(a, x).get(mem, []):
                for b0, b1 in getattr(b, y).get(mem, []):
                    if a0 < b1 and b0 < a1:
                        return True
    return False


def _commands(M, N, K, params=PARAMS):
    rng = np.random.default_rng(0)
    prog = plan_gemm(params, rng.integers(-8, 8, (M, K)), rng.integers(-8, 8, (K, N)))
    return prog.plan, prog


@pytest.mark.parametrize("shape", [(3, 5, 7), (17, 9, 13), (40, 4, 4), (9, 17, 30)])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tokens_order_every_conflict_under_any_timing(shape, seed):
    cmds, prog = _commands(*shape)
    times = simulate(cmds, prog.commands, np.random.default_rng(seed))
    for i, a in enumerate(cmds):
        for j in range(i + 1, len(cmds)):
            b = cmds[j]
            if a.unit != b.unit and conflicts(a, b):
                assert times[i][1] <= times[j][0], (i, a, j, b)


def test_a_wait_already_implied_is_not_repeated():
    # two loads into the same lines, each read by a compute: the second load waits for the first compute once
    cmds = [Command("load", {"sp_addr": 0, "lines": 4}, writes={"sp": [(0, 4)]}),
            Command("compute", {"m_len": 4}, reads={"sp": [(0, 4)]}),
            Command("compute", {"m_len": 4}, reads={"sp": [(0, 4)]}),
            Command("load", {"sp_addr": 0, "lines": 4}, writes={"sp": [(0, 4)]})]
    flags = [decode(w)[1] for w in resolve_tokens(cmds)]
    assert flags[0]["push_next"] == 1 and flags[1]["pop_prev"] == 1 and flags[2]["pop_prev"] == 0
    assert flags[2]["push_prev"] == 1 and flags[1]["push_prev"] == 0 and flags[3]["pop_next"] == 1


def test_tiles_are_equal_within_one_row_and_fit_the_memories():
    cmds, prog = _commands(41, 4, 4)   # the accumulator holds two tiles of 8 rows: 6 tiles of 7 or 6 rows
    assert prog.m_tile == 7
    rows = [c.fields["m_len"] for c in cmds if c.op == "compute"]
    assert sorted(set(rows)) == [6, 7] and sum(rows) == 41


def test_a_k_too_long_for_the_scratchpad_is_refused():
    with pytest.raises(ConfigError, match="K: 200 needs 50 scratchpad slices"):
        plan_gemm(PARAMS, np.zeros((4, 200), dtype=np.int64), np.zeros((200, 4), dtype=np.int64))


def test_lines_pack_little_endian_and_unpack_signed():
    values = np.array([[1, -2, 127, -128]])
    data = pack_lines(values, 8)
    assert data == bytes([1, 0xFE, 0x7F, 0x80])
    assert unpack_lines(data, 4, 8, signed=True).tolist() == values.tolist()


def test_im2col_gives_the_convolution():
    rng = np.random.default_rng(3)
    x, w = rng.integers(-4, 4, (2, 5, 6)), rng.integers(-4, 4, (3, 2, 3, 3))
    A, B, (P, Q) = conv_im2col(x, w, (2, 1), (1, 0, 1, 2))
    xp = np.pad(x, ((0, 0), (1, 1), (0, 2)))
    ref = np.array([[[(xp[:, p * 2:p * 2 + 3, q:q + 3] * w[k]).sum() for q in range(Q)] for p in range(P)]
                    for k in range(3)])
    assert (P, Q) == (3, 6)
    assert ((A @ B).T.reshape(3, P, Q) == ref).all()
