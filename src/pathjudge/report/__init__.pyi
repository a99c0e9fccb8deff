# The public names of pathjudge.report (its __all__), one import each: type checkers read them here, and
# pathjudge._lazy imports each from its module on first use at run time.

from pathjudge.report.html import write_html_report as write_html_report
from pathjudge.report.json_report import dumps_report as dumps_report
from pathjudge.report.json_report import write_report as write_report
from pathjudge.report.junit import write_junit as write_junit
from pathjudge.report.markdown import write_markdown_report as write_markdown_report
from pathjudge.report.plots import plot_confusion_matrix as plot_confusion_matrix
from pathjudge.report.plots import plot_pass_k as plot_pass_k
from pathjudge.report.plots import plot_path_scores as plot_path_scores
from pathjudge.report.plots import plot_reliability as plot_reliability
from pathjudge.report.progress import progress_bars as progress_bars
