"""Progress a log can read: start/end lines per stage and periodic lines with rate and ETA."""

import io
import re
import time

from neo4j_retag.cli.common import ProgressBars
from neo4j_retag.cli.progress import ProgressLines


def test_lines_start_periodic_end_and_restart():
    out = io.StringIO()
    with ProgressLines(out, interval=0.05) as p:
        p("text units extracted", 0, 4)
        p("text units extracted", 1, None)
        time.sleep(0.2)  # a long call: the ticker speaks meanwhile
        p("text units extracted", 3, None)
        p("community reports", 0, 2)
        p("community reports", 2, None)
        p("community reports", 0, 1)  # the same stage again (a topic scope)
        p("topic assign", 1, None)  # no total: ended when the context exits
    lines = out.getvalue().splitlines()
    assert all(re.match(r"\[progress \d\d:\d\d:\d\d\] ", ln) for ln in lines)
    text = "\n".join(lines)
    assert "text units extracted: start (4 to do)" in text
    assert re.search(r"text units extracted: 1/4 \(25%\), [\d.]+/s, ETA \d\d:\d\d:\d\d", text)
    assert re.search(r"text units extracted: done, 4/4 \(100%\), [\d.]+/s in [\d.]+s", text)
    assert text.count("community reports: start") == 2
    assert text.count("community reports: done") == 2
    assert "topic assign: done, 1 done" in text


def test_progress_bars_print_lines_when_stdout_is_not_a_tty(capsys):
    with ProgressBars(interval=60) as bars:
        bars("documents loaded", 0, None)
        bars("documents loaded", 3, 3)
    assert "documents loaded: done, 3/3" in capsys.readouterr().out
    with ProgressBars(quiet=True) as bars:
        bars("documents loaded", 3, 3)
    assert capsys.readouterr().out == ""
