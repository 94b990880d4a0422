"""Exceptions that the command line turns into one-line messages with exit code 2.

Library code raises these (or plain ``ValueError``/``TypeError`` from parameter
validation); only :mod:`accelgen.cli` decides how they are shown.
"""

from __future__ import annotations


class AccelgenError(Exception):
    """Base class: a problem the user can fix (bad input, missing tool, ...)."""


class ConfigError(AccelgenError, ValueError):
    """An invalid configuration. ``problems`` lists every ``(field_path, message)``."""

    def __init__(self, problems: list[tuple[str, str]], source: str | None = None):
        self.problems = list(problems)
        self.source = source
        where = f"{source}: " if source else ""
        text = "; ".join(f"{path}: {msg}" if path else msg for path, msg in self.problems)
        super().__init__(f"{where}{text}")


class ToolNotFoundError(AccelgenError):
    """A required external tool (simulator, synthesizer) is not available."""


class OutputError(AccelgenError):
    """The output location cannot be written."""


class ToolFailedError(AccelgenError):
    """An external tool failed on a design (the message names the tool, the design and the log's tail)."""
