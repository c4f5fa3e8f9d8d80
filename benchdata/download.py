"""Verified files: read from a cache directory, downloaded when missing, never used unverified.

A file is trusted only once its SHA-256 matches the pinned value, and it is hashed on every use,
not only after a download: a cache can be corrupted or replaced later. Its bytes are read into
memory once, hashed, and parsed from that same buffer, so what was verified is what gets parsed.

A download goes to a temporary file beside the final one and is renamed only when it is complete
and verified; a failure of any kind removes it. A partial or corrupt download therefore never
exists under the final name, where a later run would take it for a good copy.

Errors are one line each (the worker records `ErrorType: message` and the CLI prints it) and say
what to do: where to put the file by hand, or which file to delete.

A download may bring at most the real file's size (RemoteFile.max_bytes), and is refused up front
when the cache has less free space than that: a misbehaving mirror cannot fill the disk.

Why not pooch: its retrieve/fetch replace a cached file whose hash differs by downloading again,
where twinbench must refuse it and say so; its retries live in that same fetch; and its
HTTPDownloader has no size bound and hashes the file on disk rather than the bytes that are then
parsed. What would remain of it is a requests loop and a progress bar, for two more dependencies.
The progress bar is rich's (already installed with Keras), shown once a transfer lasts a few
seconds; in a log or pipe, a plain line every PLAIN_EVERY_S instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchdata.transfer import TransferFailed, free_bytes, transfer

CHUNK = 1 << 20
DEFAULT_TIMEOUT_S = 60.0
SHOW_AFTER_S = 2.0  # a transfer shows no progress until it has lasted this long (most are quick)
REPORT_EVERY_S = 1.0  # then its progress is reported this often, and once more at its end
PLAIN_EVERY_S = 10.0  # ... but as plain lines (a log or pipe) only this often

# Progress of one transfer: (file name, bytes so far, bytes in all or None, seconds so far).
ProgressHook = Callable[[str, int, int | None, float], None]
# Where a parent process draws this process' progress (twinbench's worker sends it there), the
# parent's hook goes here; otherwise a terminal gets a rich bar and a log plain lines.
transfer_progress: ProgressHook | None = None


class DataError(RuntimeError):
    """A real dataset could not be used. The message is one line, for the user."""

    def __init__(self, message: str) -> None:
        # One line whatever went into it (an OS message, a server's reason): the CLI prints it.
        super().__init__(" ".join(message.splitlines()))


class DataUnavailable(DataError):
    """The file is not in the cache and could not be downloaded."""


class ChecksumMismatch(DataError):
    """A cached or downloaded file's SHA-256 differs from the pinned one."""


class UnpinnedChecksum(DataError):
    """No SHA-256 is known for the file, so it cannot be verified and is not used."""


class DataFormatError(DataError):
    """A verified file does not hold what its loader expects (or holds a refused pickle)."""


@dataclass(frozen=True)
class RemoteFile:
    """One downloadable file and the checksum it must have."""

    key: str  # short id, used for per-file overrides (data.sha256.<key>)
    filename: str  # the name in the cache directory, and on a mirror
    url: str  # the canonical public URL
    sha256: str | None  # pinned checksum; None = not yet confirmed (the file is refused)
    also_cached_as: tuple[str, ...] = ()  # names other Keras versions cached the same file under
    # The most bytes a download may bring: the real file's size. A server that sends more (or
    # streams without end) is cut off there, and a cache without this much free space is refused
    # before the transfer starts. None = no bound (only for files whose size is not known).
    max_bytes: int | None = None


@dataclass(frozen=True)
class VerifiedFile:
    name: str
    path: Path
    sha256: str
    data: bytes = field(repr=False)


def keras_cache_dir() -> Path:
    """Keras' own dataset cache: $KERAS_HOME/datasets if KERAS_HOME is set, else ~/.keras/datasets.

    Keras falls back to /tmp/.keras when the home directory is not writable; twinbench does not
    (a silent change of cache would hide where files went): set data.cache_dir instead.
    """
    home = os.environ.get("KERAS_HOME") or os.path.join("~", ".keras")
    return Path(home).expanduser() / "datasets"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileStore:
    """Where verified files live (cache_dir) and come from (canonical URLs, or one mirror)."""

    cache_dir: Path
    mirror: str | None = None  # base URL serving every file by its name, replacing canonical URLs
    sha256: Mapping[str, str | None] = field(default_factory=dict)  # overrides, by RemoteFile.key
    timeout_s: float = DEFAULT_TIMEOUT_S  # per socket operation, not for the whole transfer
    quiet: bool = False
    progress: ProgressHook | None = None  # None: transfer_progress, else a bar or plain lines

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None) -> FileStore:
        """From the `data` config group (conf/data/real.yaml); missing keys take the defaults."""
        options = options or {}
        cache_dir = options.get("cache_dir")
        timeout = options.get("timeout_s")
        overrides = {k: str(v).lower() for k, v in (options.get("sha256") or {}).items() if v}
        for key, value in overrides.items():
            if not re.fullmatch(r"[0-9a-f]{64}", value):
                raise ValueError(f"data.sha256.{key} must be 64 hex digits, got {value!r}")
        return cls(
            cache_dir=Path(cache_dir).expanduser() if cache_dir else keras_cache_dir(),
            mirror=options.get("mirror") or None,
            sha256=overrides,
            timeout_s=float(timeout) if timeout else DEFAULT_TIMEOUT_S,
        )

    def url_for(self, f: RemoteFile) -> str:
        return f"{self.mirror.rstrip('/')}/{f.filename}" if self.mirror else f.url

    def expected_sha256(self, f: RemoteFile) -> str | None:
        pinned = self.sha256.get(f.key) or f.sha256
        return pinned.lower() if pinned else None

    def read(self, f: RemoteFile) -> VerifiedFile:
        """The file's verified bytes: from the cache, else downloaded (and cached) first."""
        expected = self.expected_sha256(f)
        path = self._cached(f)
        if expected is None:
            raise self._unpinned(f, path)
        if path is None:
            path = self._download(f, expected)
        data = self._read_bytes(path)
        actual = sha256_bytes(data)
        if actual != expected:
            raise ChecksumMismatch(
                f"{path} has SHA-256 {actual} but {f.filename} must have {expected}: the file is "
                f"corrupt or not the expected one; delete it and re-run to download it again, "
                f"or replace it with a good copy from {self.url_for(f)}"
            )
        return VerifiedFile(f.filename, path, actual, data)

    def _cached(self, f: RemoteFile) -> Path | None:
        # The canonical name first: if it exists it is the copy we use (and check), never
        # silently skipped for an alias.
        for name in (f.filename, *f.also_cached_as):
            path = self.cache_dir / name
            if path.is_file():
                return path
        return None

    @staticmethod
    def _read_bytes(path: Path) -> bytes:
        try:
            return path.read_bytes()
        except OSError as exc:
            raise DataUnavailable(f"cannot read {path}: {exc.strerror or exc}") from None

    def _unpinned(self, f: RemoteFile, path: Path | None) -> UnpinnedChecksum:
        how = f"data.sha256.{f.key}=<its SHA-256>"
        if path is not None:
            found = sha256_bytes(self._read_bytes(path))
            return UnpinnedChecksum(
                f"no SHA-256 is pinned for {f.filename}, so {path} cannot be verified and is not "
                f"used; its SHA-256 is {found}: if you trust this copy (source {f.url}), run with "
                f"data.sha256.{f.key}={found}"
            )
        return UnpinnedChecksum(
            f"no SHA-256 is pinned for {f.filename}, so it cannot be verified and is not "
            f"downloaded; get it from {f.url}, check it, place it at "
            f"{self.cache_dir / f.filename} and run with {how}"
        )

    def _say(self, message: str) -> None:
        if not self.quiet:
            print(message, file=sys.stdout, flush=True)

    def _download(self, f: RemoteFile, expected: str) -> Path:
        url, target = self.url_for(f), self.cache_dir / f.filename
        by_hand = f"download it by hand from {url} and place it at {target}"
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            fd, tmp_name = tempfile.mkstemp(
                dir=self.cache_dir, prefix=f".{f.filename}.", suffix=".part"
            )
        except OSError as exc:
            raise DataUnavailable(
                f"{f.filename} is not cached and the cache directory {self.cache_dir} is not "
                f"writable ({exc.strerror or exc}); set data.cache_dir, or {by_hand}"
            ) from None
        tmp = Path(tmp_name)
        free = free_bytes(self.cache_dir)
        if f.max_bytes is not None and free is not None and free < f.max_bytes:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise DataUnavailable(
                f"{f.filename} needs {f.max_bytes:,} bytes but the cache directory "
                f"{self.cache_dir} has only {free:,} free; free some space, set data.cache_dir "
                f"to a larger disk, or {by_hand}"
            )
        self._say(f"downloading {f.filename} from {url} to {self.cache_dir}")
        try:
            with os.fdopen(fd, "wb") as out:
                os.fchmod(out.fileno(), 0o644)  # mkstemp's 0600 would hide a shared cache's files
                try:
                    with self._progress(f.filename) as on_chunk:
                        actual, size = transfer(
                            url, out, self.timeout_s, f.max_bytes, on_chunk, CHUNK
                        )
                except TransferFailed as exc:
                    raise DataUnavailable(
                        f"{f.filename} is not in {self.cache_dir} and could not be downloaded "
                        f"from {url} ({exc}); download it from that URL by hand and place it "
                        f"at {target}"
                    ) from None
                out.flush()
                os.fsync(out.fileno())
            if actual != expected:
                raise ChecksumMismatch(
                    f"{f.filename} downloaded from {url} has SHA-256 {actual} but must have "
                    f"{expected}; it was discarded (nothing saved). The transfer was corrupted or "
                    f"the file changed upstream: retry, or {by_hand}"
                )
            os.replace(tmp, target)  # atomic: the final name appears only now, complete
        except BaseException:
            tmp.unlink(missing_ok=True)  # also on Ctrl-C: never leave a partial file behind
            raise
        self._say(f"downloaded {f.filename} ({size:,} bytes, SHA-256 verified)")
        return target

    @contextlib.contextmanager
    def _progress(self, filename: str) -> Iterator[Callable[[int, int | None], None]]:
        """A per-chunk callback that reports the transfer through the right hook, throttled."""
        if self.quiet:
            yield lambda done, total: None
            return
        hook, every_s, close = self.progress or transfer_progress, REPORT_EVERY_S, None
        if hook is None and sys.stdout.isatty():
            hook, close = _rich_bar(sys.stdout)
        elif hook is None:
            hook, every_s = self._plain_progress, PLAIN_EVERY_S
        throttle = _Throttle(filename, hook, every_s)
        try:
            yield throttle.chunk
            throttle.end()
        finally:
            if close is not None:
                close()

    def _plain_progress(self, filename: str, done: int, total: int | None, elapsed: float) -> None:
        of = f" of {total / 1e6:,.1f} MB ({done / total:.0%})" if total else " MB"
        self._say(f"downloading {filename}: {done / 1e6:,.1f}{of} in {elapsed:.0f} s")


class _Throttle:
    """Calls `hook` once the transfer has lasted SHOW_AFTER_S, then every `every_s`, and at the
    end of a transfer it has shown (so the last report is the whole file)."""

    def __init__(self, filename: str, hook: ProgressHook, every_s: float):
        self.filename, self.hook, self.every_s = filename, hook, every_s
        self.start = time.monotonic()
        self.last_report: float | None = None
        self.done, self.total = 0, None

    def chunk(self, done: int, total: int | None) -> None:
        self.done, self.total = done, total
        now = time.monotonic()
        if now - self.start < SHOW_AFTER_S:
            return
        if self.last_report is None or now - self.last_report >= self.every_s:
            self.last_report = now
            self.hook(self.filename, done, total, now - self.start)

    def end(self) -> None:
        if self.last_report is not None:
            self.hook(self.filename, self.done, self.total, time.monotonic() - self.start)


def _rich_bar(out) -> tuple[ProgressHook, Callable[[], None]]:
    """A rich download bar on a terminal (bytes, rate, time left); and how to remove it."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    bar = Progress(
        TextColumn("downloading {task.description}", markup=False),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=Console(file=out),
        transient=True,
    )
    task = None

    def hook(filename: str, done: int, total: int | None, elapsed: float) -> None:
        nonlocal task
        if task is None:
            bar.start()
            task = bar.add_task(filename, total=total)
        bar.update(task, completed=done, total=total)

    return hook, bar.stop
