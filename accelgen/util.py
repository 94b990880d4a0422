"""Small helpers shared by the subpackages: atomic file output, hashing, cache location."""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

from .errors import ConfigError, OutputError


def sha256_hex(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and no whitespace variance: stable input for hashing."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def cache_dir(*parts: str) -> Path:
    """The accelgen cache (``$ACCELGEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/accelgen``,
    else ``~/.cache/accelgen``), with ``parts`` appended and created."""
    root = os.environ.get("ACCELGEN_CACHE_DIR")
    if root:
        base = Path(root)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "accelgen"
    path = base.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def ensure_output_dir(path: str | os.PathLike) -> Path:
    """Create ``path`` if needed and check it is writable; raise :class:`OutputError` if not."""
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"output directory {str(out)!r} cannot be created: {exc.strerror}") from None
    if not out.is_dir():
        raise OutputError(f"output directory {str(out)!r} is not a directory")
    if not os.access(out, os.W_OK | os.X_OK):
        raise OutputError(f"output directory {str(out)!r} is not writable")
    return out


def _umask() -> int:
    """The process's umask (reading it means setting it: set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_file_mode(target: Path) -> int:
    """The mode ``target`` gets when written: its own if it exists, else what ``open()`` would give a new file
    (0666 less the umask). ``mkstemp`` makes its file 0600 whatever the umask."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


@contextlib.contextmanager
def atomic_files(targets: list[Path]) -> Iterator[list[Path]]:
    """Yield temporary paths beside ``targets``; on success rename them all into place.

    If the body raises (or is interrupted), every temporary file is removed and no
    target is touched, so an output directory never holds a half-written file.
    """
    temps: list[Path] = []
    try:
        for target in targets:
            fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
            try:
                os.fchmod(fd, _new_file_mode(target))
            finally:
                os.close(fd)
            temps.append(Path(name))
        yield temps
        for tmp, target in zip(temps, targets):
            os.replace(tmp, target)
    finally:
        for tmp in temps:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()


def write_atomic(target: Path, text: str) -> None:
    with atomic_files([target]) as (tmp,):
        tmp.write_text(text)


def read_yaml(path: str | os.PathLike) -> Any:
    """Parse a YAML file; an unreadable file or malformed YAML is a :class:`ConfigError` with
    the file as its source (``file not found``, ``cannot read: ...``, ``malformed YAML: line L,
    column C: problem``)."""
    import yaml  # noqa: PLC0415 (util stays importable without PyYAML's cost for the cache helpers)

    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise ConfigError([("", "file not found")], str(p)) from None
    except OSError as exc:
        raise ConfigError([("", f"cannot read: {exc.strerror}")], str(p)) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError([("", f"malformed YAML: {where}{problem}")], str(p)) from None


def module_digest(*objects: Any) -> str:
    """SHA-256 of the source of the accelgen modules that define ``objects`` (functions, classes
    or modules) and of every accelgen module they import, transitively (imports inside functions
    included).

    ``from package import name`` counts the module that defines ``name``, not the whole package,
    so a cache keyed by this digest is invalidated by an edit of the code a result depends on and
    by nothing else. Modules are found through their imports, never by path.
    """
    seen: dict[str, str] = {}
    todo = [_defining_module(obj) for obj in objects if obj is not None]
    while todo:
        mod = todo.pop()
        if mod is None or mod.__name__ in seen or not mod.__name__.startswith(_ROOT):
            continue
        source = inspect.getsource(mod) if getattr(mod, "__file__", None) else ""
        seen[mod.__name__] = sha256_hex(source)
        todo += _imported_modules(mod, source)
    return sha256_hex(canonical_json(sorted(seen.items())))


_ROOT = __name__.partition(".")[0]


def _defining_module(obj: Any) -> ModuleType | None:
    if isinstance(obj, ModuleType):
        return obj
    return sys.modules.get(getattr(obj, "__module__", None) or "")


def _imported_modules(mod: ModuleType, source: str) -> list[ModuleType]:
    out = []
    package = mod.__package__ or ""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [importlib.import_module(a.name) for a in node.names if a.name.startswith(_ROOT)]
        elif isinstance(node, ast.ImportFrom):
            base_name = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            if not base_name.startswith(_ROOT):
                continue
            base = importlib.import_module(base_name)
            for alias in node.names:
                value = getattr(base, alias.name, None)
                out.append(_defining_module(value) if value is not None and _defining_module(value) else base)
    return out
