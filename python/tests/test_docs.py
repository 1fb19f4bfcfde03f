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


def test_type_stubs_cover_the_extension_and_public_functions_have_docstrings():
    import ast
    import inspect

    import serpsim
    import serpsim._serpsim as ext

    tree = ast.parse((ROOT / "python" / "serpsim" / "_serpsim.pyi").read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    exported = {n for n in dir(ext) if not n.startswith("__")}
    assert stubbed == exported, (exported - stubbed, stubbed - exported)
    assert (ROOT / "python" / "serpsim" / "py.typed").exists()
    modules = [serpsim, serpsim.clicks, serpsim.evaluation, serpsim.simulation, serpsim.study, serpsim.rankers, serpsim.wordnet,
               serpsim.measures, serpsim.terrier]
    for mod in modules:
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                assert obj.__doc__ and obj.__doc__.strip(), f"{mod.__name__}.{name} has no docstring"
