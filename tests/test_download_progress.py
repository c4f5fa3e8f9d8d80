"""A download that lasts more than a few seconds shows its progress: the bytes it has and the
bytes it will have, as a rich bar on a terminal, plain lines in a log, or samples a worker sends
to its parent. The transfer's own rules (bounded size, verified bytes) are unchanged."""

from __future__ import annotations

import hashlib
import io
import json
import os

import pytest

from benchdata import download
from benchdata.download import FileStore, RemoteFile
from twinbench.ui import live, progress

from .fileserver import FileServer

DATA = os.urandom(50_000)
FILE = RemoteFile("blob", "blob.bin", "http://invalid/blob.bin",
                  hashlib.sha256(DATA).hexdigest(), max_bytes=len(DATA))  # fmt: skip


@pytest.fixture
def server():
    srv = FileServer().start()
    srv.add("blob.bin", DATA)
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def every_chunk(monkeypatch):
    """Small chunks, reported at once: a loopback transfer behaves like a long one."""
    monkeypatch.setattr(download, "CHUNK", 4096)
    monkeypatch.setattr(download, "SHOW_AFTER_S", 0.0)
    monkeypatch.setattr(download, "REPORT_EVERY_S", 0.0)
    monkeypatch.setattr(download, "PLAIN_EVERY_S", 0.0)


def test_progress_reports_the_bytes_so_far_and_the_whole_files_bytes(server, tmp_path, every_chunk):
    reports = []
    store = FileStore(tmp_path, server.url, progress=lambda *r: reports.append(r))
    verified = store.read(FILE)
    assert verified.data == DATA  # what was reported on is what was hashed and is parsed
    done = [r[1] for r in reports]
    assert done == sorted(done) and done[0] == 4096
    assert reports[-1][:3] == ("blob.bin", len(DATA), len(DATA))  # the last report: all of it
    assert {r[2] for r in reports} == {len(DATA)}  # the announced length, every time
    assert len(reports) == -(-len(DATA) // 4096) + 1  # every chunk, and once at the end


def test_a_quick_transfer_shows_no_progress_and_a_quiet_one_none_at_all(server, tmp_path):
    reports = []
    FileStore(tmp_path / "a", server.url, progress=lambda *r: reports.append(r)).read(FILE)
    assert reports == []  # done well within SHOW_AFTER_S


def test_quiet_shows_nothing_even_for_a_long_transfer(server, tmp_path, every_chunk, capsys):
    FileStore(tmp_path, server.url, quiet=True).read(FILE)
    assert capsys.readouterr().out == ""


def test_in_a_log_a_long_transfer_is_plain_lines(server, tmp_path, every_chunk, capsys):
    FileStore(tmp_path, server.url).read(FILE)  # stdout is not a terminal here
    lines = capsys.readouterr().out.splitlines()
    progress_lines = [line for line in lines if line.startswith("downloading blob.bin:")]
    assert progress_lines[-1].startswith("downloading blob.bin: 0.1 of 0.1 MB (100%)")
    assert lines[-1] == f"downloaded blob.bin ({len(DATA):,} bytes, SHA-256 verified)"


def test_on_a_terminal_a_rich_bar_counts_megabytes():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    hook, close = download._rich_bar(tty)
    hook("mnist.npz", 5_000_000, 11_490_434, 1.0)
    close()
    assert "downloading mnist.npz" in tty.getvalue() and "5.0/11.5 MB" in tty.getvalue()


def test_a_workers_transfer_reaches_the_parent_as_a_sample(capsys):
    progress.transfer_sender("torch mlp cpus=1")("mnist.npz", 5_000_000, 10_000_000, 3.0)
    raw = capsys.readouterr().out
    assert raw.startswith(progress.SAMPLE_MARK)
    sample = json.loads(raw[len(progress.SAMPLE_MARK) :])
    assert progress.describe(sample) == (
        "[torch mlp cpus=1] downloading mnist.npz: 5.0 of 10.0 MB (50%)  3s, about 3s left"
    )


def test_the_parent_draws_a_workers_download_in_megabytes(monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")

    class Tty(io.StringIO):
        def isatty(self):
            return True

    sample = {"label": "torch mlp cpus=1", "download": "mnist.npz", "done": 5_000_000,
              "total": 10_000_000, "elapsed_s": 3.0}  # fmt: skip
    tty = Tty()
    live.Relay(out=tty).run([progress.SAMPLE_MARK + json.dumps(sample) + "\n"])
    drawn = tty.getvalue()
    assert "[torch mlp cpus=1] downloading mnist.npz" in drawn and "5.0/10.0 MB" in drawn
