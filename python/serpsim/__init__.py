"""serpsim: simulate search-engine users and analyse user studies, from Python.

The package wraps the same Rust library as the ``serpsim`` command line: results are the
same numbers, errors carry the same ``file:line`` messages, and long calls release the GIL,
show a progress bar (``serpsim.set_progress(False)`` turns it off) and stop on Ctrl-C.

Functions: :func:`evaluate` (with :func:`agreement` and :func:`compare`), :func:`simulate`,
:func:`compare_rankers`. Modules: :mod:`serpsim.clicks` (click models), :mod:`serpsim.study`
(eye tracking, AOIs, attention), :mod:`serpsim.wordnet` (word similarity),
:mod:`serpsim.measures` (serpsim's measures in ir_measures, registered on import when
ir_measures is installed), :mod:`serpsim.terrier` (PyTerrier: tests and intervals). Tables
come back as pandas DataFrames, or polars ones (``output="polars"`` or polars input).
"""

from . import clicks, errors, spark
from .evaluation import agreement, compare, evaluate  # noqa: E402
from .simulation import simulate  # noqa: E402
from . import study, wordnet  # noqa: E402
from . import measures, terrier  # noqa: E402
from .rankers import compare_rankers  # noqa: E402
from ._jobs import set_progress
from ._serpsim import version as _version
from .errors import ConfigError, Error, InternalError, InvalidInputError, IOError, ParseError

__version__ = _version()

__all__ = [
    "clicks",
    "evaluate",
    "simulate",
    "study",
    "wordnet",
    "compare_rankers",
    "agreement",
    "compare",
    "spark",
    "measures",
    "terrier",
    "errors",
    "set_progress",
    "Error",
    "ParseError",
    "ConfigError",
    "InvalidInputError",
    "IOError",
    "InternalError",
    "__version__",
]
