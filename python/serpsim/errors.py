"""Exceptions raised by serpsim.

Every error from the library carries the same message as the command line prints, e.g.
``runs/x.gz:12: expected at least 6 fields, found 3``. The classes also derive from the
matching built-in exception, so ``except ValueError`` catches a bad input file.
"""


class Error(Exception):
    """Base class of every serpsim error."""


class ParseError(Error, ValueError):
    """A malformed line in an input file: the message starts with ``file:line:``."""


class ConfigError(Error, ValueError):
    """An invalid value in a scenario or parameter set: the message names the key."""


class InvalidInputError(Error, ValueError):
    """Input that is well-formed but unusable: a missing column, an empty log, a bad argument."""


class IOError(Error, OSError):  # noqa: A001 - serpsim.IOError, not the builtin alias
    """A file could not be read or written (other than a missing file, which raises
    ``FileNotFoundError``)."""


class InternalError(Error, RuntimeError):
    """A bug in serpsim (a Rust panic caught at the boundary). Please report it."""


__all__ = ["Error", "ParseError", "ConfigError", "InvalidInputError", "IOError", "InternalError"]
