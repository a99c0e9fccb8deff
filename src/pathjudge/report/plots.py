"""PNG plots for reports: path-score distribution, confusion matrix, reliability of vote share, pass^k.

Renderers only: every function draws exactly the numbers it is given and computes no statistic beyond
placing values into histogram bins. matplotlib is an optional extra (``pathjudge[plots]``), imported on
first use; figures are drawn on the Agg canvas without touching pyplot's global state, so the functions
are safe to call from threads and never open a window.

Output is deterministic: the same inputs give byte-identical PNG files (no timestamp or software
metadata, fixed size, dpi and style). Every ``plot_*`` function writes a PNG atomically and returns its
path; every ``*_png`` function returns the same image as bytes, and :func:`png_data_uri` turns bytes into
a ``data:`` URI for embedding in a self-contained HTML report.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from pathjudge._io import write_bytes_atomic
from pathjudge._optional import require
from pathjudge.report.text import one_line

__all__ = [
    "confusion_matrix_png",
    "pass_k_png",
    "path_scores_png",
    "plot_confusion_matrix",
    "plot_pass_k",
    "plot_path_scores",
    "plot_reliability",
    "png_data_uri",
    "reliability_png",
]

_DPI = 100
_STYLE: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "path.simplify": True,
}
_INK = "#1f2937"
_ACCENT = "#2563eb"
_MUTED = "#9ca3af"
_PALETTE = ("#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")


@contextmanager
def _figure(width: float, height: float) -> Iterator[Any]:
    """A fresh Agg-backed matplotlib Figure with the report style applied while drawing and saving."""
    require("matplotlib", "plots", "drawing report plots")
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(cast(Any, _STYLE)):
        fig = Figure(figsize=(width, height), dpi=_DPI)
        FigureCanvasAgg(fig)
        yield fig


def _png(fig: Any) -> bytes:
    buffer = io.BytesIO()
    # metadata={"Software": None} drops the only varying chunk; Agg adds no timestamp to PNGs.
    fig.savefig(buffer, format="png", dpi=_DPI, metadata={"Software": None})
    return buffer.getvalue()


def _write(path: Path, data: bytes) -> Path:
    return write_bytes_atomic(path, data)


def _empty_note(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", color=_MUTED, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def png_data_uri(png: bytes) -> str:
    """``data:image/png;base64,...`` for ``png`` bytes, to embed an image in a self-contained page."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def confusion_matrix_png(
    matrix: Sequence[Sequence[int]],
    labels: Sequence[str],
    title: str,
    *,
    columns: Sequence[str] | None = None,
) -> bytes:
    """The confusion matrix as PNG bytes: rows are the human (true) labels, columns the judge's.

    ``matrix[i][j]`` counts items labelled ``labels[i]`` by humans and ``columns[j]`` (default:
    ``labels[j]``) by the judge (the scikit-learn convention); ``columns`` lets the judge have answers
    the humans never give (a pairwise judge's ``unsure``). Each cell shows its count. An empty matrix
    (no labels) draws a "no labelled items" panel. Raises ``ValueError`` when the matrix does not have
    one row per label and one column per column label, or holds a negative count.
    """
    size = len(labels)
    cols = list(labels if columns is None else columns)
    rows = [list(row) for row in matrix]
    if len(rows) != size or any(len(row) != len(cols) for row in rows):
        raise ValueError(
            f"confusion matrix must be {size}x{len(cols)} to match its {size} row and "
            f"{len(cols)} column labels, got {len(rows)} rows of lengths {[len(row) for row in rows]}"
        )
    if any(value < 0 for row in rows for value in row):
        raise ValueError("confusion matrix counts must be non-negative")
    side = max(3.2, 1.1 * size + 1.8)
    with _figure(side + 0.6 + 1.1 * (len(cols) - size), side) as fig:
        ax = fig.add_subplot(1, 1, 1)
        ax.set_title(one_line(title), color=_INK)  # a title is data: controls shown
        if size == 0:
            _empty_note(ax, "no labelled items")
            return _png(fig)
        peak = max((value for row in rows for value in row), default=0)
        image = ax.imshow(rows, cmap="Blues", vmin=0, vmax=max(peak, 1), aspect="equal")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                dark = peak > 0 and value > peak / 2
                ax.text(j, i, str(value), ha="center", va="center", color="white" if dark else _INK)
        ax.set_xticks(range(len(cols)), labels=cols)
        ax.set_yticks(range(size), labels=list(labels))
        ax.set_xlabel("judge")
        ax.set_ylabel("human")
        for side_name in ("top", "right"):
            ax.spines[side_name].set_visible(True)
        fig.tight_layout()
        return _png(fig)


def plot_confusion_matrix(
    matrix: Sequence[Sequence[int]],
    labels: Sequence[str],
    title: str,
    path: Path,
    *,
    columns: Sequence[str] | None = None,
) -> Path:
    """Write :func:`confusion_matrix_png` to ``path`` (PNG) and return ``path``."""
    return _write(path, confusion_matrix_png(matrix, labels, title, columns=columns))


def reliability_png(points: Sequence[tuple[float, float, int]], title: str) -> bytes:
    """Reliability of the judge's vote share as PNG bytes.

    Each point is ``(mean k-sample vote share, observed human pass rate, count)`` for one bin; marker
    area grows with the count, which is also printed beside the point. The dashed diagonal is perfect
    calibration. No points draws the axes and the diagonal with a "no bins" note. Raises
    ``ValueError`` for a share or rate outside [0, 1] or a negative count.
    """
    for index, (share, rate, count) in enumerate(points):
        if not (0.0 <= share <= 1.0 and 0.0 <= rate <= 1.0) or count < 0:
            raise ValueError(
                f"reliability point {index} = ({share}, {rate}, {count}): share and rate must lie in "
                "[0, 1] and the count must be non-negative"
            )
    with _figure(4.6, 4.2) as fig:
        ax = fig.add_subplot(1, 1, 1)
        ax.set_title(one_line(title), color=_INK)
        ax.plot(
            [0, 1], [0, 1], linestyle="--", color=_MUTED, linewidth=1, label="perfect calibration"
        )
        if points:
            largest = max(max(count for _, _, count in points), 1)
            xs = [share for share, _, _ in points]
            ys = [rate for _, rate, _ in points]
            sizes = [30 + 270 * count / largest for _, _, count in points]
            ax.plot(xs, ys, color=_ACCENT, linewidth=1, alpha=0.6)
            ax.scatter(xs, ys, s=sizes, color=_ACCENT, alpha=0.8, edgecolors="white", zorder=3)
            for share, rate, count in points:
                ax.annotate(
                    f"n={count}",
                    (share, rate),
                    textcoords="offset points",
                    xytext=(6, -12),
                    fontsize=8,
                    color=_INK,
                )
        else:
            ax.text(0.5, 0.55, "no bins", ha="center", color=_MUTED, transform=ax.transAxes)
        ax.set_xlim(-0.03, 1.03)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("judge vote share (mean of k samples)")
        ax.set_ylabel("human pass rate")
        ax.legend(loc="upper left", frameon=False, fontsize=8)
        fig.tight_layout()
        return _png(fig)


def plot_reliability(points: Sequence[tuple[float, float, int]], title: str, path: Path) -> Path:
    """Write :func:`reliability_png` to ``path`` (PNG) and return ``path``."""
    return _write(path, reliability_png(points, title))


def path_scores_png(scores: Sequence[float], title: str) -> bytes:
    """Histogram of path scores (0..100) as PNG bytes: eleven bins ``[0,10) ... [90,100), {100}``.

    The last bin holds only perfect scores, so "matched a reference exactly" stands apart from "nearly".
    No scores draws an empty panel with a "no runs" note. Raises ``ValueError`` for a score outside
    [0, 100].
    """
    for index, score in enumerate(scores):
        if not 0.0 <= score <= 100.0:
            raise ValueError(f"path score {index} is {score}; path scores lie in [0, 100]")
    with _figure(6.0, 2.9) as fig:
        ax = fig.add_subplot(1, 1, 1)
        ax.set_title(title, color=_INK)
        counts = [0] * 11
        for score in scores:
            counts[10 if score >= 100.0 else int(score // 10)] += 1
        lefts = [10 * index for index in range(10)] + [100]
        widths = [9.0] * 10 + [4.0]
        colors = [_ACCENT] * 10 + ["#059669"]
        ax.bar(lefts, counts, width=widths, align="edge", color=colors)
        for left, width, count in zip(lefts, widths, counts, strict=True):
            if count:
                ax.text(
                    left + width / 2,
                    count,
                    str(count),
                    ha="center",
                    va="bottom",
                    fontsize=8,
                    color=_INK,
                )
        ax.set_xlim(-2, 106)
        ax.set_xticks([*range(0, 101, 10)])
        ax.set_xlabel("path score (100 = matched a reference, no wasted call)")
        ax.set_ylabel("runs")
        if not scores:
            ax.text(
                0.5, 0.5, "no runs", ha="center", va="center", color=_MUTED, transform=ax.transAxes
            )
            ax.set_ylim(0, 1)
        else:
            ax.set_ylim(0, max(counts) * 1.15 + 0.5)
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        fig.tight_layout()
        return _png(fig)


def plot_path_scores(scores: Sequence[float], title: str, path: Path) -> Path:
    """Write :func:`path_scores_png` to ``path`` (PNG) and return ``path``."""
    return _write(path, path_scores_png(scores, title))


def pass_k_png(curves: Mapping[str, Sequence[tuple[int, float]]], title: str) -> bytes:
    """pass^k (or pass@k) against k as PNG bytes: one line per named curve, in the mapping's order.

    Each curve is a sequence of ``(k, rate)`` with ``k >= 1`` and ``rate`` in [0, 1], drawn in the
    order given. More than eight curves reuse the palette with dashed lines. No curves draws empty
    axes with a "no epochs" note. Raises ``ValueError`` for ``k < 1`` or a rate outside [0, 1].
    """
    for name, curve in curves.items():
        for k, rate in curve:
            if k < 1 or not 0.0 <= rate <= 1.0:
                raise ValueError(
                    f"pass^k curve {name!r} has point ({k}, {rate}); need k >= 1 and rate in [0, 1]"
                )
    with _figure(6.0, 3.8) as fig:
        ax = fig.add_subplot(1, 1, 1)
        ax.set_title(title, color=_INK)
        largest_k = 1
        for index, (name, curve) in enumerate(curves.items()):
            ks = [k for k, _ in curve]
            rates = [rate for _, rate in curve]
            largest_k = max([largest_k, *ks])
            ax.plot(
                ks,
                rates,
                marker="o",
                markersize=4,
                linewidth=1.5,
                color=_PALETTE[index % len(_PALETTE)],
                linestyle="-" if index < len(_PALETTE) else "--",
                label=name,
            )
        if curves:
            ax.legend(
                loc="lower left", frameon=False, fontsize=8, ncols=2 if len(curves) > 6 else 1
            )
        else:
            ax.text(
                0.5,
                0.5,
                "no epochs",
                ha="center",
                va="center",
                color=_MUTED,
                transform=ax.transAxes,
            )
        ax.set_xlim(0.7, largest_k + 0.3)
        ax.set_xticks(
            range(1, largest_k + 1)
            if largest_k <= 20
            else range(1, largest_k + 1, max(1, largest_k // 10))
        )
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("k (epochs)")
        ax.set_ylabel("rate")
        ax.grid(axis="y", color="#e5e7eb", linewidth=0.8)
        fig.tight_layout()
        return _png(fig)


def plot_pass_k(curves: Mapping[str, Sequence[tuple[int, float]]], title: str, path: Path) -> Path:
    """Write :func:`pass_k_png` to ``path`` (PNG) and return ``path``."""
    return _write(path, pass_k_png(curves, title))
