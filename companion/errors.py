"""One root error for the project; specific errors also subclass the matching builtin.

A CompanionError is a user's mistake (bad file, bad name, bad config): the CLI prints its
message on one line and exits with a non-zero code. Anything else is a bug and keeps its
traceback.
"""
from __future__ import annotations


class CompanionError(Exception):
    """A mistake the user can fix; its message is one clear line."""

    exit_code = 1


class UnknownCardError(CompanionError, ValueError):
    """A card name outside the vocabulary."""


class UnknownColorError(CompanionError, ValueError):
    """A colour name outside red, yellow, green, blue."""


class RulesError(CompanionError, ValueError):
    """A table option that does not exist or has a bad value."""


class InputFileError(CompanionError, OSError):
    """A file that is missing or cannot be read."""

    exit_code = 2


class ConfigError(CompanionError, ValueError):
    """A bad value in the configuration file; the message names the key and line."""

    exit_code = 2


class UsageError(CompanionError, ValueError):
    """A command line that does not fit: a value out of range, options that do not go
    together. Exit status 2, as argparse gives for a command line it cannot parse."""

    exit_code = 2
