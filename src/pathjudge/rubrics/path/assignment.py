"""The assignment solvers the pairing is built from, on plain ``(ref, call) -> weight`` pairs.

- :func:`hungarian`: minimum-cost assignment (Kuhn-Munkres, pure Python);
- :func:`_max_weight_matching`: the maximum-weight matching over the positive weights (with a cheap
  exit for a matching made of stars);
- :func:`_chain_dp`: the best pairing that keeps reference order (weighted longest common
  subsequence);
- :func:`_constrained_search`: the best pairing that respects a partial order (exact branch and bound,
  bounded by a node limit and :data:`MAX_SEARCH_STEPS`).

Nothing here knows about runs, steps or modes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

__all__ = ["MAX_SEARCH_STEPS", "hungarian"]


# Above this many search nodes the exact branch and bound stops and keeps its best pairing so far
# (reported as ``search_truncated``); never reached with the usual handful of reference steps.
_NODE_LIMIT = 200_000

MAX_SEARCH_STEPS = 800
"""The most steps a reference whose order has choices in it may have for the constrained search,
which recurses once per step (beyond it, the path check breaks with an error that says so)."""


def hungarian(cost: Sequence[Sequence[float]]) -> list[int]:
    """Minimum-cost assignment for an ``n x m`` matrix with ``n <= m``; returns the column per row.

    Pure Python O(n^2 m) (Kuhn-Munkres with potentials), exact for any real costs. Empty input (no
    rows) returns an empty list.
    """
    n = len(cost)
    if n == 0:
        return []
    m = len(cost[0])
    if m < n:
        raise ValueError(f"hungarian needs rows <= columns, got {n} x {m}")
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            row = cost[i0 - 1]
            ui0 = u[i0]
            delta = inf
            j1 = 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = row[j - 1] - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    assignment = [-1] * n
    for j in range(1, m + 1):
        if p[j]:
            assignment[p[j] - 1] = j - 1
    return assignment


def _max_weight_matching(
    weights: dict[tuple[int, int], float],
    refs: Sequence[int] | None = None,
    calls: Sequence[int] | None = None,
    exits: bool = True,
) -> dict[int, int]:
    """Maximum-weight matching between ``refs`` and ``calls`` (``None``: all of them) over the
    positive ``weights``; ref -> call.

    Cheap exit: when every pair has a step or a call that is in no other pair, each connected part
    is a star (one step with several calls, or one call with several steps) whose best matching is
    its heaviest pair; when that pair is the only heaviest one in every star, the maximum-weight
    matching is unique, so it is what the assignment below finds, and it is taken directly
    (``exits=False``: never; the plain path the tests pin it to).
    """
    if refs is None and calls is None:
        edges = weights
    else:
        if (refs is not None and not refs) or (calls is not None and not calls):
            return {}
        ref_set = None if refs is None else set(refs)
        call_set = None if calls is None else set(calls)
        edges = {
            key: w
            for key, w in weights.items()
            if (ref_set is None or key[0] in ref_set) and (call_set is None or key[1] in call_set)
        }
    if not edges:
        return {}
    ref_deg: dict[int, int] = {}
    call_deg: dict[int, int] = {}
    for r, c in edges:
        ref_deg[r] = ref_deg.get(r, 0) + 1
        call_deg[c] = call_deg.get(c, 0) + 1
    if exits:
        unique = _star_matching(edges, ref_deg, call_deg)
        if unique is not None:
            return unique
    rows = sorted(ref_deg)
    cols = sorted(call_deg)
    top = max(edges.values())
    transpose = len(rows) > len(cols)
    if transpose:
        rows, cols = cols, rows
    matrix = [[top - edges.get((c, r) if transpose else (r, c), 0.0) for c in cols] for r in rows]
    assignment = hungarian(matrix)
    result: dict[int, int] = {}
    for ri, ci in enumerate(assignment):
        r, c = rows[ri], cols[ci]
        ref, call = (c, r) if transpose else (r, c)
        if (ref, call) in edges:
            result[ref] = call
    return result


def _star_matching(
    edges: Mapping[tuple[int, int], float], ref_deg: Mapping[int, int], call_deg: Mapping[int, int]
) -> dict[int, int] | None:
    """The maximum-weight matching when every connected part of ``edges`` is a star whose heaviest
    pair is its only heaviest one (then that matching is unique), else ``None``."""
    stars: dict[tuple[bool, int], tuple[float, int, int]] = {}
    for (r, c), w in edges.items():
        if call_deg[c] == 1:
            center = (True, r)
        elif ref_deg[r] == 1:
            center = (False, c)
        else:
            return None  # both ends in other pairs: a part that is not a star
        known = stars.get(center)
        if known is None or w > known[0]:
            stars[center] = (w, r, c)
        elif w == known[0]:
            return None  # two heaviest pairs: the assignment's tie-break decides
    return {r: c for _, r, c in stars.values()}


def _chain_dp(weights: dict[tuple[int, int], float], n_refs: int, n_calls: int) -> dict[int, int]:
    """Weighted longest common subsequence: the best pairing that keeps reference order."""
    if not weights:
        return {}
    dp = [[0.0] * (n_calls + 1) for _ in range(n_refs + 1)]
    for r in range(1, n_refs + 1):
        prev = dp[r - 1]
        cur = dp[r]
        for c in range(1, n_calls + 1):
            best = prev[c] if prev[c] >= cur[c - 1] else cur[c - 1]
            w = weights.get((r - 1, c - 1))
            if w is not None and prev[c - 1] + w > best:
                best = prev[c - 1] + w
            cur[c] = best
    pairs: dict[int, int] = {}
    r, c = n_refs, n_calls
    while r > 0 and c > 0:
        w = weights.get((r - 1, c - 1))
        if w is not None and dp[r][c] == dp[r - 1][c - 1] + w and dp[r][c] != dp[r - 1][c]:
            pairs[r - 1] = c - 1
            r -= 1
            c -= 1
        elif dp[r][c] == dp[r - 1][c]:
            r -= 1
        else:
            c -= 1
    return pairs


def _constrained_search(
    weights: dict[tuple[int, int], float],
    order: Sequence[int],
    ancestors: Sequence[frozenset[int]],
    allowed: Callable[[int, int], bool],
) -> tuple[dict[int, int], bool]:
    """Exact branch and bound: the best pairing where each ref's call is ``allowed`` after its ancestors'.

    ``order`` is a topological order of the refs; ``allowed(a, b)`` says call ``b`` may serve a step that
    depends on a step served by call ``a``. Returns the pairing and whether the node limit was hit.
    """
    if len(order) > MAX_SEARCH_STEPS:
        # the search recurses once per reference step: refuse what the interpreter's stack could
        # not hold, with an error that says what to do, rather than a RecursionError
        raise ValueError(
            f"a reference with an order among {len(order)} steps is over the "
            f"{MAX_SEARCH_STEPS} the constrained search takes; split it into shorter references"
        )
    candidates: dict[int, list[tuple[float, int]]] = {}
    for (r, c), w in weights.items():
        candidates.setdefault(r, []).append((w, c))
    for r in candidates:
        candidates[r].sort(key=lambda item: (-item[0], item[1]))
    best_remaining = [0.0] * (len(order) + 1)
    for k in range(len(order) - 1, -1, -1):
        opts = candidates.get(order[k])
        best_remaining[k] = best_remaining[k + 1] + (opts[0][0] if opts else 0.0)
    best_total = -1.0
    best_pairs: dict[int, int] = {}
    current: dict[int, int] = {}
    used: set[int] = set()
    nodes = 0
    truncated = False

    def visit(k: int, total: float) -> None:
        nonlocal best_total, best_pairs, nodes, truncated
        nodes += 1
        if nodes > _NODE_LIMIT:
            truncated = True
            return
        if total + best_remaining[k] <= best_total:
            return
        if k == len(order):
            best_total = total
            best_pairs = dict(current)
            return
        ref = order[k]
        for w, call in candidates.get(ref, ()):
            if call in used:
                continue
            if all(allowed(current[a], call) for a in ancestors[ref] if a in current):
                used.add(call)
                current[ref] = call
                visit(k + 1, total + w)
                del current[ref]
                used.discard(call)
        visit(k + 1, total)

    visit(0, 0.0)
    return best_pairs, truncated
