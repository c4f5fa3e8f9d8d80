"""One HTTP transfer, streamed, hashed and bounded in size; FileStore (benchdata/download.py)
decides where it goes and whether it is kept."""

from __future__ import annotations

import hashlib
import http.client
import shutil
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path


class TransferFailed(Exception):
    """Why a download failed, in a few words."""


def free_bytes(directory: Path) -> int | None:
    try:
        return shutil.disk_usage(directory).free
    except OSError:
        return None  # unknown: the bound on the transfer still holds


def transfer(
    url: str,
    out,
    timeout_s: float,
    max_bytes: int | None,
    on_chunk: Callable[[int, int | None], None] | None = None,
    chunk_bytes: int = 1 << 20,
) -> tuple[str, int]:
    """Stream `url` into `out`; return (sha256, size). Any failure raises TransferFailed.

    At most `max_bytes` are accepted: a larger announced length is refused before the body is
    read, and a body that runs past it is cut off there. `on_chunk(bytes so far, announced
    length)` hears of every chunk written and hashed.
    """
    digest, size = hashlib.sha256(), 0
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            length = response.headers.get("Content-Length")
            expected_size = int(length) if length and length.strip().isdigit() else None
            if max_bytes is not None and expected_size is not None and expected_size > max_bytes:
                raise TransferFailed(
                    f"the server announces {expected_size:,} bytes but the file has "
                    f"{max_bytes:,}; refused"
                )
            while chunk := response.read(chunk_bytes):
                if max_bytes is not None and size + len(chunk) > max_bytes:
                    raise TransferFailed(
                        f"the server sent more than the file's {max_bytes:,} bytes; cut off"
                    )
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
                if on_chunk is not None:
                    on_chunk(size, expected_size)
    except urllib.error.HTTPError as exc:
        raise TransferFailed(f"HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        text = getattr(reason, "strerror", None) or str(reason)
        raise TransferFailed(text) from None
    except TimeoutError:  # socket.timeout is an alias of it
        raise TransferFailed(f"no data for {timeout_s:g} s") from None
    except http.client.IncompleteRead as exc:
        raise TransferFailed(f"connection closed after {size + len(exc.partial):,} bytes") from None
    except (http.client.HTTPException, OSError) as exc:
        raise TransferFailed(f"{type(exc).__name__}: {exc}") from None
    # http.client returns a short body without complaint when the server closes early, so the
    # length is checked here (the checksum would catch it too, with a less helpful message).
    if expected_size is not None and size != expected_size:
        raise TransferFailed(
            f"connection closed after {size:,} of {expected_size:,} bytes (incomplete download)"
        )
    return digest.hexdigest(), size
