"""`uno-companion init`: write a commented configuration file to the standard location."""
from __future__ import annotations

import argparse
from pathlib import Path

from companion.config import commented_config, default_config_path, parse_config, suggest_passphrase
from companion.errors import CompanionError, InputFileError
from companion.files import written_whole

HELP = "write a configuration file"


class ConfigExistsError(CompanionError, FileExistsError):
    """init would overwrite a configuration someone may have edited (a file problem: 2)."""

    exit_code = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--path",
        type=Path,
        default=None,
        help=f"where to write it (default: {default_config_path()})",
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")


def main(args: argparse.Namespace) -> int:
    path: Path = (args.path or default_config_path()).expanduser()
    if path.is_dir():
        raise InputFileError(f"{path} is a folder: name the configuration file in it, e.g. {path / 'config.toml'}")
    if path.exists() and not args.force:
        raise ConfigExistsError(f"{path} already exists: edit it, or overwrite it with --force")
    passphrase = suggest_passphrase()
    text = commented_config(host_pin=passphrase)
    parse_config(text, name=str(path))  # what we write must read back
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with written_whole(path) as fh:  # never half a file, nor a leftover one
            fh.write(text)
    except OSError as exc:
        raise InputFileError(f"{path}: cannot write the configuration: {exc.strerror or exc}") from None
    print(f"wrote {path}")
    print(f"host passphrase: {passphrase}  (host_pin in the file: keep it, or put your own of 10+ characters)")
    start = "uno-companion run" if path == default_config_path().expanduser() else f"uno-companion run --config {path}"
    print(f"edit players, pins and camera there, then start with: {start}")
    return 0
