"""serpsim: simulate search-engine users and analyse user studies, from Python.

The package wraps the same Rust library as the ``serpsim`` command line: results are the
same numbers, errors carry the same ``file:line`` messages, and long calls release the GIL,
show a progress bar (``serpsim.set_progress(False)`` turns it off) and stop on Ctrl-C.

Modules: :mod:`serpsim.clicks` (click models).
"""

from . import clicks, errors
from ._jobs import set_progress
from ._serpsim import version as _version
from .errors import ConfigError, Error, InternalError, InvalidInputError, IOError, ParseError

__version__ = _version()

__all__ = [
    "clicks",
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
