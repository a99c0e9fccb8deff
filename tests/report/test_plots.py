"""The four report plots: valid PNGs, byte-identical on reruns, clear errors on impossible input."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest

from pathjudge.report import plots

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _size(png: bytes) -> tuple[int, int]:
    assert png[:8] == PNG_MAGIC
    width, height = struct.unpack(
        ">II", png[16:24]
    )  # IHDR: width, height right after the chunk header
    return width, height


def _chunks(png: bytes) -> list[bytes]:
    names, pos = [], 8
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        names.append(png[pos + 4 : pos + 8])
        pos += 12 + length
    return names


def test_each_plot_writes_a_png_and_returns_its_path(tmp_path: Path) -> None:
    written = [
        plots.plot_confusion_matrix(
            [[40, 3], [5, 52]], ["pass", "fail"], "judge vs human", tmp_path / "cm.png"
        ),
        plots.plot_reliability(
            [(0.1, 0.05, 20), (0.9, 0.85, 40)], "reliability", tmp_path / "rel.png"
        ),
        plots.plot_path_scores([100.0, 75.0, 0.0, 55.5], "path scores", tmp_path / "a" / "ps.png"),
        plots.plot_pass_k(
            {"t1": [(1, 0.9), (2, 0.81)], "t2": [(1, 0.5), (2, 0.25)]},
            "pass^k",
            tmp_path / "pk.png",
        ),
    ]
    assert [p.name for p in written] == ["cm.png", "rel.png", "ps.png", "pk.png"]
    for path in written:
        width, height = _size(path.read_bytes())
        assert 200 <= width <= 1000
        assert 200 <= height <= 1000
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        "cm.png",
        "pk.png",
        "ps.png",
        "rel.png",
    ]


def test_output_is_deterministic_and_carries_no_software_or_time_metadata() -> None:
    first = plots.path_scores_png([100.0, 90.0, 10.0], "scores")
    second = plots.path_scores_png([100.0, 90.0, 10.0], "scores")
    assert first == second
    assert not {b"tEXt", b"iTXt", b"tIME"} & set(_chunks(first))
    assert plots.path_scores_png([100.0, 90.0, 20.0], "scores") != first


def test_empty_inputs_draw_a_placeholder_instead_of_failing() -> None:
    for png in (
        plots.confusion_matrix_png([], [], "empty"),
        plots.reliability_png([], "empty"),
        plots.path_scores_png([], "empty"),
        plots.pass_k_png({}, "empty"),
    ):
        assert png.startswith(PNG_MAGIC)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: plots.confusion_matrix_png([[1, 2]], ["pass", "fail"], "t"), "must be 2x2"),
        (
            lambda: plots.confusion_matrix_png([[1, -2], [0, 0]], ["pass", "fail"], "t"),
            "non-negative",
        ),
        (lambda: plots.reliability_png([(1.2, 0.5, 3)], "t"), "reliability point 0"),
        (lambda: plots.path_scores_png([101.0], "t"), "path score 0 is 101.0"),
        (lambda: plots.pass_k_png({"a": [(0, 0.5)]}, "t"), "curve 'a'"),
    ],
)
def test_impossible_input_raises_a_value_error_naming_it(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_png_data_uri_round_trips() -> None:
    png = plots.pass_k_png({"suite": [(1, 1.0)]}, "one point")
    uri = plots.png_data_uri(png)
    assert uri.startswith("data:image/png;base64,")
    assert base64.b64decode(uri.split(",", 1)[1]) == png


def test_a_calibration_plot_title_from_data_shows_its_control_characters() -> None:
    """A criterion name is data: an escape sequence in it is drawn as ``\\x1b``, never handed to the
    font as a glyph it lacks (which warns, an error under this suite's filterwarnings)."""
    from pathjudge.report.plots import confusion_matrix_png, reliability_png

    assert confusion_matrix_png([[1, 0], [0, 1]], ["pass", "fail"], "crit-\x1b[2J x").startswith(
        b"\x89PNG"
    )
    assert reliability_png([(0.5, 0.5, 2)], "crit-\x1b]0;t\x07 reliability").startswith(b"\x89PNG")
