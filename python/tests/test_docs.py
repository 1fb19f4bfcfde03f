"""docs/python.md is a notebook in Markdown: its `python` blocks must run, in order."""

import os
import re

from conftest import ROOT


def test_walkthrough_runs(monkeypatch, capsys):
    text = (ROOT / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 6
    monkeypatch.chdir(ROOT)
    import serpsim

    serpsim.set_progress(False)
    namespace = {}
    try:
        for i, code in enumerate(blocks):
            exec(compile(code, f"docs/python.md block {i + 1}", "exec"), namespace)
    finally:
        serpsim.set_progress(True)
    out = capsys.readouterr().out
    assert "missing column `score`" in out
