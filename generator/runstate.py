"""The one private folder a run keeps its state in: journals, intents, the lock, compiled
templates, the no-op manifests, mypy's cache and scratch folders.

It is ``.cache/cube-codegen/`` under the project root (the nearest folder at or above the
current one that holds ``spec/cube-codegen.yaml``), or, outside any project, the per-user cache
folder (``$XDG_CACHE_HOME/cube-codegen``, else ``~/.cache/cube-codegen``); never beside an
output folder, where another user could have made it first. Every folder of it is created
owner-only (0700) and refused when it is a symbolic link, is not the caller's or is writable by
others; every file in it is opened without following a link and refused on the same terms, so
nothing another user (or a cloned repository) planted there is ever trusted.

Standard library only: the no-op path of ``generate`` asks it before its heavy imports.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import os
import stat
from pathlib import Path

from generator import DEFAULT_CONFIG, RUN_STATE

USER_CACHE_ENV = "XDG_CACHE_HOME"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIGEST = hashlib.sha256().digest_size


class RunStateRefused(OSError):
    """The run state (or a file in it) is not the caller's alone; the CLI says so in one line,
    exit 2, and touches nothing in it. An ``OSError``, so that every command's one-line error
    path reports it."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(errno.EPERM, f"{why}; refusing to use it as run state", str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror} [run-state-refused]"


def project_root(start: Path | None = None) -> Path | None:
    """The nearest folder at or above ``start`` (the current folder) holding the project's
    configuration, or None outside any project."""
    here = Path(os.path.abspath(start or Path.cwd()))
    for folder in (here, *here.parents):
        if (folder / DEFAULT_CONFIG).is_file():
            return folder
    return None


def user_cache() -> Path:
    """``$XDG_CACHE_HOME/cube-codegen`` (an absolute value only, as the specification says),
    else ``~/.cache/cube-codegen``."""
    base = os.environ.get(USER_CACHE_ENV, "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cube-codegen"


def locate(start: Path | None = None) -> tuple[Path, Path | None]:
    """The run state folder (which may not exist yet) and the project root it belongs to
    (None for the per-user cache)."""
    root = project_root(start)
    return (root / RUN_STATE, root) if root is not None else (user_cache(), None)


def folder(*parts: str, start: Path | None = None) -> Path:
    """The run state (or a folder in it), created owner-only and checked to be private."""
    top, _ = locate(start)
    return private_dir(top, *parts)


def private_dir(top: Path, *parts: str) -> Path:
    """``top`` and each of ``parts`` below it, created 0700 where missing; every one checked."""
    if not top.is_dir() and not top.is_symlink():
        top.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = top
    for part in ("", *parts):
        path = path / part if part else path
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
        info = os.lstat(path)
        check_private(path, info, folder=True)
        if info.st_mode & 0o077:  # ours, made before run state was private: make it so
            os.chmod(path, 0o700)
    return path


def check_existing(top: Path) -> bool:
    """Whether the run state ``top`` exists, after refusing it when it is not private."""
    try:
        info = os.lstat(top)
    except FileNotFoundError:
        return False
    check_private(top, info, folder=True)
    return True


def check_private(path: Path | str, info: os.stat_result, *, folder: bool = False) -> None:
    """Refuse a run state entry that is a link, of the wrong kind, another user's, or
    writable by group or others."""
    kind_ok = stat.S_ISDIR(info.st_mode) if folder else stat.S_ISREG(info.st_mode)
    if not kind_ok:
        what = (
            "a symbolic link"
            if stat.S_ISLNK(info.st_mode)
            else "not a plain " + ("folder" if folder else "file")
        )
        raise RunStateRefused(path, f"is {what}")
    if info.st_uid != os.geteuid():
        raise RunStateRefused(path, f"belongs to user {info.st_uid}, not to the caller")
    if info.st_mode & 0o022:
        raise RunStateRefused(path, f"is writable by others (mode {info.st_mode & 0o777:o})")


def open_private(path: Path, flags: int = os.O_RDONLY, mode: int = 0o600) -> int:
    """A descriptor on a run state file, never through a link, checked to be the caller's
    alone (``flags`` may add ``O_CREAT``); the caller closes it."""
    fd = os.open(path, flags | _NOFOLLOW | _CLOEXEC, mode)
    try:
        check_private(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_private(path: Path, limit: int = 64 << 20) -> bytes | None:
    """A run state file's bytes; None when it is missing (a refused one raises)."""
    try:
        fd = open_private(path)
    except FileNotFoundError:
        return None
    except OSError as exc:  # ELOOP: a symbolic link where a file of ours should be
        raise RunStateRefused(path, exc.strerror or "cannot be opened") from None
    with os.fdopen(fd, "rb") as fh:
        return fh.read(limit)


def write_private(path: Path, data: bytes) -> None:
    """Replace a run state file whole (owner-only, synced, renamed over the old one)."""
    import tempfile  # here: the no-op check imports this module and rarely writes

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def secret_key() -> bytes:
    """This installation's key for the checksums of cached code (32 random bytes, made once,
    kept owner-only in the run state): files no one else could have signed."""
    path = folder() / "key"
    data = read_private(path)
    if data is not None and len(data) == 32:
        return data
    key = os.urandom(32)
    write_private(path, key)
    return key


def read_signed(path: Path, label: bytes, secret: bytes) -> bytes | None:
    """The payload of a cache entry this installation signed (HMAC-SHA256 with ``secret`` over
    ``label`` and the payload); None when the entry is missing, refused, torn or signed by
    anyone else, so the caller works it out again. A used entry is touched: the least recently
    used go first when a cache prunes itself."""
    try:
        data = read_private(path)
    except (OSError, RunStateRefused):
        return None
    if data is None or len(data) <= _DIGEST:
        return None
    mac, payload = data[:_DIGEST], data[_DIGEST:]
    if not hmac.compare_digest(mac, _sign(secret, label, payload)):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)
    return payload


def write_signed(path: Path, label: bytes, secret: bytes, payload: bytes) -> bool:
    """Replace the cache entry at ``path`` with ``payload`` signed for :func:`read_signed`;
    False (and nothing left behind) when it cannot be written. Not synced: a torn entry fails
    its checksum and is only worked out again."""
    import tempfile  # here, as in write_private: the no-op check imports this module

    from generator.files import TEMP_TAG

    tmp = ""
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{TEMP_TAG}-{os.getpid()}-", suffix=".tmp", dir=path.parent
        )
        with os.fdopen(fd, "wb") as fh:
            fh.write(_sign(secret, label, payload) + payload)
        os.replace(tmp, path)
    except OSError:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
        return False
    return True


def _sign(secret: bytes, label: bytes, payload: bytes) -> bytes:
    return hmac.new(secret, label + b"\0" + payload, hashlib.sha256).digest()
