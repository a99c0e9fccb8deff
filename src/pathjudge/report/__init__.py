"""Renderers only: terminal, JSON, Markdown, JUnit XML, HTML, plots, and the CLI's progress bars.

The public names of this package are ``__all__``; they load lazily, on first use.
"""

import typing as _typing

from pathjudge._lazy import lazy_exports as _lazy_exports

# public name -> defining module ("module:attribute" where the names differ)
_EXPORTS: dict[str, str] = {
    "dumps_report": "pathjudge.report.json_report",
    "plot_confusion_matrix": "pathjudge.report.plots",
    "plot_pass_k": "pathjudge.report.plots",
    "plot_path_scores": "pathjudge.report.plots",
    "plot_reliability": "pathjudge.report.plots",
    "progress_bars": "pathjudge.report.progress",
    "write_html_report": "pathjudge.report.html",
    "write_junit": "pathjudge.report.junit",
    "write_markdown_report": "pathjudge.report.markdown",
    "write_report": "pathjudge.report.json_report",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

if _typing.TYPE_CHECKING:  # pragma: no cover - the same names, for type checkers
    from pathjudge.report.html import write_html_report as write_html_report
    from pathjudge.report.json_report import (
        dumps_report as dumps_report,
    )
    from pathjudge.report.json_report import (
        write_report as write_report,
    )
    from pathjudge.report.junit import write_junit as write_junit
    from pathjudge.report.markdown import write_markdown_report as write_markdown_report
    from pathjudge.report.plots import (
        plot_confusion_matrix as plot_confusion_matrix,
    )
    from pathjudge.report.plots import (
        plot_pass_k as plot_pass_k,
    )
    from pathjudge.report.plots import (
        plot_path_scores as plot_path_scores,
    )
    from pathjudge.report.plots import (
        plot_reliability as plot_reliability,
    )
    from pathjudge.report.progress import progress_bars as progress_bars
