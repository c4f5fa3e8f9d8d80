"""Real datasets: verified downloads over loopback, clear errors, safe parsing, Keras' conventions.

No test touches the internet: tiny files in the real formats (tests/realformat.py) are served by
a loopback server (tests/fileserver.py) and pinned by injecting their own checksums.
"""

from __future__ import annotations

import io
import os
import pickle
import socket
import subprocess
import sys
import tarfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import benchdata
from benchdata import nietzsche, real, real_files, text
from benchdata.download import (
    ChecksumMismatch,
    DataFormatError,
    DataUnavailable,
    FileStore,
    UnpinnedChecksum,
    keras_cache_dir,
)
from twinbench.config.spec import CONF_DIR, group_choices

from . import realformat as rf
from .conftest import read_result, run_cli
from .fileserver import FileServer

TINY = {
    "mnist": ("mnist.npz", rf.mnist_npz()),
    "cifar10": ("cifar-10-python.tar.gz", rf.cifar_tar_gz()),
    "imdb": ("imdb.npz", rf.imdb_default()),
    "nietzsche": ("nietzsche.txt", rf.nietzsche_txt()),
}
PINNED = {key: rf.sha256(data) for key, (_, data) in TINY.items()}


@pytest.fixture
def server():
    srv = FileServer().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def cache(tmp_path) -> Path:
    return tmp_path / "cache"


def make_store(cache: Path, mirror: str | None, sha256=None, timeout_s: float = 5) -> FileStore:
    """The tiny files' own checksums pinned in place of the real ones (or `sha256`)."""
    return FileStore(cache, mirror, PINNED if sha256 is None else sha256, timeout_s, quiet=True)


def serve_all(server: FileServer) -> None:
    for name, data in TINY.values():
        server.add(name, data)


def leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


@pytest.fixture
def refused_port():
    """A loopback port that refuses connections: bound, never listening, held for the test."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


# --- download, cache, verification -----------------------------------------------------------


def test_download_is_verified_cached_and_the_second_load_needs_no_network(server, cache):
    serve_all(server)
    store = make_store(cache, server.url)
    first = real.load_mnist("flat", store)
    assert server.requests == ["mnist.npz"]
    assert (cache / "mnist.npz").read_bytes() == TINY["mnist"][1]
    assert leftovers(cache) == ["mnist.npz"]  # no temporary file left behind
    assert (cache / "mnist.npz").stat().st_mode & 0o777 == 0o644  # readable in a shared cache

    server.stop()  # from here on any network access would fail
    again = real.load_mnist("flat", store)
    assert np.array_equal(first.x_train, again.x_train)
    assert again.info["files"] == {"mnist.npz": PINNED["mnist"]}
    assert again.info["source"] == "real"


def test_checksum_mismatch_on_download_leaves_nothing_under_the_final_name(server, cache):
    good = TINY["mnist"][1]
    bad = good[:-10] + bytes(10)
    server.add("mnist.npz", bad)
    with pytest.raises(ChecksumMismatch) as err:
        real.load_mnist("flat", make_store(cache, server.url))
    message = str(err.value)
    assert rf.sha256(bad) in message and PINNED["mnist"] in message
    assert f"{server.url}/mnist.npz" in message and "\n" not in message
    assert leftovers(cache) == []


def test_a_corrupt_cached_file_is_an_error_naming_it_and_both_checksums(server, cache):
    cache.mkdir()
    damaged = bytearray(TINY["mnist"][1])
    damaged[100] ^= 0xFF
    (cache / "mnist.npz").write_bytes(bytes(damaged))
    serve_all(server)
    with pytest.raises(ChecksumMismatch) as err:
        real.load_mnist("flat", make_store(cache, server.url))
    message = str(err.value)
    assert str(cache / "mnist.npz") in message
    assert PINNED["mnist"] in message and rf.sha256(bytes(damaged)) in message
    assert "delete it and re-run" in message
    assert server.requests == []  # a bad cache is reported, not silently replaced
    assert (cache / "mnist.npz").read_bytes() == bytes(damaged)  # the user's file is untouched


@pytest.mark.parametrize("fault", ["truncate", "truncate-unannounced"])
def test_an_interrupted_download_leaves_no_file_that_looks_valid(server, cache, fault):
    server.add("mnist.npz", TINY["mnist"][1], fault=fault)
    expected = DataUnavailable if fault == "truncate" else ChecksumMismatch
    with pytest.raises(expected) as err:
        real.load_mnist("flat", make_store(cache, server.url))
    if fault == "truncate":  # Content-Length announced: the short body is named as such
        size = len(TINY["mnist"][1])
        assert f"connection closed after {size // 2:,} of {size:,} bytes" in str(err.value)
    assert leftovers(cache) == []
    # The next run starts clean and succeeds once the server behaves.
    server.faults.clear()
    assert real.load_mnist("flat", make_store(cache, server.url)).x_train.shape == (12, 784)


def test_offline_is_one_line_naming_the_file_the_url_and_where_to_put_it(cache, refused_port):
    mirror = f"http://127.0.0.1:{refused_port}"
    with pytest.raises(DataUnavailable) as err:
        real.load_mnist("flat", make_store(cache, mirror))
    message = str(err.value)
    assert "\n" not in message
    assert f"{mirror}/mnist.npz" in message and "Connection refused" in message
    assert f"place it at {cache / 'mnist.npz'}" in message
    assert leftovers(cache) == []


def test_http_errors_and_stalled_servers_are_clear_errors(server, cache):
    with pytest.raises(DataUnavailable, match=r"HTTP 404"):
        real.load_mnist("flat", make_store(cache, server.url))
    server.add("mnist.npz", TINY["mnist"][1], fault="stall")
    with pytest.raises(DataUnavailable, match=r"no data for 0\.5 s"):
        real.load_mnist("flat", make_store(cache, server.url, timeout_s=0.5))
    assert leftovers(cache) == []


def test_nietzsche_is_pinned_to_the_copy_whose_sizes_match_keras_example():
    pinned = real_files.FILES["nietzsche"].sha256
    assert pinned == "9cb94a5f1f8d1359e2e018fa67306eba4ae03942b8c44643eececded39e096df"


def test_a_file_without_a_pinned_checksum_is_refused_and_the_message_says_how_to_pin(
    server, cache, monkeypatch
):
    serve_all(server)
    unpinned = {k: v for k, v in PINNED.items() if k != "nietzsche"}
    store = make_store(cache, server.url, sha256=unpinned)
    monkeypatch.setitem(  # a file nobody has pinned yet
        real_files.FILES, "nietzsche", replace(real_files.FILES["nietzsche"], sha256=None)
    )
    with pytest.raises(UnpinnedChecksum, match=r"data\.sha256\.nietzsche="):
        real.nietzsche_text(store)
    assert server.requests == []  # nothing is downloaded that cannot be verified
    cache.mkdir()
    (cache / "nietzsche.txt").write_bytes(TINY["nietzsche"][1])
    with pytest.raises(UnpinnedChecksum) as err:
        real.nietzsche_text(store)
    assert f"data.sha256.nietzsche={PINNED['nietzsche']}" in str(err.value)


def test_keras_3_cached_cifar_archive_is_reused(cache, refused_port):
    cache.mkdir()
    (cache / "cifar-10-batches-py-target_archive").write_bytes(TINY["cifar10"][1])
    data = real.load_cifar10(None, make_store(cache, f"http://127.0.0.1:{refused_port}"))
    assert data.x_train.shape == (20, 32, 32, 3)


def test_a_malformed_checksum_override_is_refused():
    with pytest.raises(ValueError, match=r"data\.sha256\.mnist must be 64 hex digits"):
        FileStore.from_options({"sha256": {"mnist": "731c5ac6"}})


def test_cache_dir_follows_keras_home_like_keras(monkeypatch, tmp_path):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "kh"))
    assert keras_cache_dir() == tmp_path / "kh" / "datasets"
    assert FileStore.from_options({"cache_dir": None}).cache_dir == tmp_path / "kh" / "datasets"
    monkeypatch.delenv("KERAS_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert keras_cache_dir() == tmp_path / "home" / ".keras" / "datasets"
    store = FileStore.from_options({"cache_dir": str(tmp_path / "mine"), "mirror": "http://m/"})
    assert store.cache_dir == tmp_path / "mine"
    assert store.url_for(real_files.FILES["imdb"]) == "http://m/imdb.npz"


# --- pickles: never before the checksum, never code --------------------------------------------


def test_a_tampered_pickle_is_never_unpickled(server, cache, tmp_path):
    marker = tmp_path / "pwned"
    payload = rf.code_running_pickle(str(marker))
    # The payload is live: a plain unpickler would run it.
    probe = tmp_path / "probe"
    pickle.loads(rf.code_running_pickle(str(probe)))
    assert probe.exists()

    tampered = rf.cifar_tar_gz(replace={"data_batch_1": payload})
    server.add("cifar-10-python.tar.gz", tampered)
    with pytest.raises(ChecksumMismatch):
        real.load_cifar10(None, make_store(cache, server.url))
    assert not marker.exists() and leftovers(cache) == []

    server.add("imdb.npz", rf.imdb_npz_with_pickle(payload))
    with pytest.raises(ChecksumMismatch):
        real.imdb_raw(make_store(cache, server.url))
    assert not marker.exists() and leftovers(cache) == []


@pytest.mark.parametrize("dataset", ["cifar10", "imdb"])
def test_a_code_running_pickle_is_refused_even_with_a_matching_checksum(
    dataset, server, cache, tmp_path
):
    """The second wall: a malicious file whose hash was pinned by mistake still runs nothing."""
    marker = tmp_path / "pwned"
    payload = rf.code_running_pickle(str(marker))
    if dataset == "cifar10":
        name, data = "cifar-10-python.tar.gz", rf.cifar_tar_gz(replace={"data_batch_3": payload})
        load = lambda store: real.load_cifar10(None, store)  # noqa: E731
    else:
        name, data = "imdb.npz", rf.imdb_npz_with_pickle(payload)
        load = real.imdb_raw
    server.add(name, data)
    store = make_store(cache, server.url, sha256={dataset: rf.sha256(data)})
    with pytest.raises(DataFormatError, match=r"refused to load the global (io|builtins)\.open"):
        load(store)
    assert not marker.exists()


def test_a_verified_file_of_the_wrong_shape_is_a_format_error(server, cache):
    batches = rf.cifar_batches()
    del batches["test_batch"]
    blob = rf.cifar_tar_gz(batches)
    server.add("cifar-10-python.tar.gz", blob)
    store = make_store(cache, server.url, sha256={"cifar10": rf.sha256(blob)})
    with pytest.raises(DataFormatError, match=r"no regular file cifar-10-batches-py/test_batch"):
        real.load_cifar10(None, store)


# --- loaders: shapes, dtypes, ranges, Keras' conventions ---------------------------------------


@pytest.fixture
def store(server, cache) -> FileStore:
    serve_all(server)
    return make_store(cache, server.url)


def test_mnist_views_shapes_dtypes_and_ranges(store):
    flat, image = real.load_mnist("flat", store), real.load_mnist("image", store)
    assert flat.x_train.shape == (12, 784) and flat.x_test.shape == (6, 784)
    assert image.x_train.shape == (12, 28, 28, 1)
    assert flat.x_train.dtype == np.float32 and flat.y_train.dtype == np.int64
    with np.load(io.BytesIO(TINY["mnist"][1])) as raw:
        assert np.array_equal(
            np.round(flat.x_test * 255).astype(np.uint8).reshape(6, 28, 28), raw["x_test"]
        )
        assert np.array_equal(flat.y_train, raw["y_train"])
    assert np.array_equal(image.x_test.reshape(6, 784), flat.x_test)
    assert flat.y_train.min() >= 0 and flat.y_train.max() <= 9
    assert flat.x_train.min() >= 0.0 and flat.x_train.max() <= 1.0


def test_cifar10_is_nhwc_float_with_rows_read_as_chw(store):
    data = real.load_cifar10(None, store)
    batches = rf.cifar_batches()
    assert data.x_train.shape == (20, 32, 32, 3) and data.x_test.shape == (4, 32, 32, 3)
    assert data.x_train.dtype == np.float32 and data.y_train.dtype == np.int64
    assert data.x_train.flags.c_contiguous
    row = batches["data_batch_2"]["data"][1]  # 5th..8th train images come from batch 2
    red, green, blue = row[:1024].reshape(32, 32), row[1024:2048].reshape(32, 32), row[2048:]
    pixel = data.x_train[5] * 255
    assert np.array_equal(np.round(pixel[..., 0]), red)
    assert np.array_equal(np.round(pixel[..., 1]), green)
    assert np.array_equal(np.round(pixel[..., 2]).ravel(), blue)
    expected_labels = [
        v for n in [f"data_batch_{i}" for i in range(1, 6)] for v in batches[n]["labels"]
    ]
    assert data.y_train.tolist() == expected_labels
    assert data.y_test.tolist() == batches["test_batch"]["labels"]
    assert set(data.y_train.tolist()) <= set(range(10))


def test_imdb_follows_keras_index_conventions(server, cache):
    # Review i's first word rank is 100 + i, so every review can be found after shuffling.
    train = [[100 + i, 1, 19_996, 19_997, 30_000] for i in range(7)]
    test = [[200 + i, 5] for i in range(5)]
    blob = rf.imdb_npz(train, [i % 2 for i in range(7)], test, [1, 0, 1, 1, 0])
    server.add("imdb.npz", blob)
    store = make_store(cache, server.url, sha256={"imdb": rf.sha256(blob)})
    raw, info = real.imdb_raw(store)

    rng = np.random.RandomState(113)  # Keras: one generator, train first, then test
    train_order, test_order = rng.permutation(7), rng.permutation(5)
    assert raw.train.tokens.dtype == np.int32
    # start 1, then every rank + 3 (no cut in the raw set, as load_data(num_words=None))
    assert [raw.train.row(j).tolist() for j in range(7)] == [
        [1, 103 + i, 4, 19_999, 20_000, 30_003] for i in train_order
    ]
    assert raw.y_train.tolist() == [i % 2 for i in train_order]
    assert [raw.test.row(j).tolist() for j in range(5)] == [[1, 203 + i, 8] for i in test_order]
    assert raw.y_test.tolist() == [[1, 0, 1, 1, 0][i] for i in test_order]
    assert raw.y_train.dtype == np.int64
    assert info["files"] == {"imdb.npz": rf.sha256(blob)} and info["index_from"] == 3

    # The model's view cuts at num_words: 19,999 is kept, 20,000 and above become oov 2.
    spec = {
        "num_words": 20_000,
        "ngram_range": 1,
        "maxlen": 8,
        "padding": "pre",
        "truncating": "pre",
    }
    data = real.load_imdb(spec, store)
    assert data.x_train.shape == (7, 8) and data.x_train.dtype == np.int32
    assert data.x_train[0].tolist() == [0, 0, 1, 103 + train_order[0], 4, 19_999, 2, 2]
    assert data.info["source"] == "real" and data.info["files"] == info["files"]


def test_nietzsche_is_the_utf8_text_lowercased_by_the_view(store):
    text, info = real.nietzsche_text(store)
    assert text == rf.NIETZSCHE_SAMPLE  # as the file holds it; lower() is the view's job
    assert info["files"] == {"nietzsche.txt": PINNED["nietzsche"]}
    lowered = rf.NIETZSCHE_SAMPLE.lower()
    spec = {"lowercase": True, "maxlen": 10, "step": 3, "encoding": "onehot"}
    data = real.load_nietzsche(spec, store)
    chars = sorted(set(lowered))
    assert "\u00e4" in chars and not any(c.isupper() for c in chars)
    n = len(range(0, len(lowered) - 10, 3))
    assert data.x_train.shape == (n, 10, len(chars)) and data.x_train.dtype == bool
    assert data.info["dims"]["chars"] == len(chars) and data.info["source"] == "real"
    # Window 1 starts at character 3 and predicts character 13.
    assert "".join(chars[k] for k in data.x_train[1].argmax(-1)) == lowered[3:13]
    assert chars[data.y_train[1]] == lowered[13]


def test_loaders_match_keras_own_loaders_on_the_same_files(store, tmp_path):
    """Oracle: Keras' own parsing, in a separate process, gives exactly our arrays. IMDb through
    keras.datasets.imdb.load_data (get_file pointed at the tiny file); CIFAR-10 through Keras'
    batch parser, assembled as its load_data does (which hard-codes 10,000 images a batch)."""
    cifar_dir = tmp_path / "cifar"
    with tarfile.open(fileobj=io.BytesIO(TINY["cifar10"][1])) as tar:
        tar.extractall(cifar_dir, filter="data")  # our own trusted file
    (tmp_path / "imdb.npz").write_bytes(TINY["imdb"][1])
    out = tmp_path / "keras.npz"
    code = f"""
import os
import numpy as np
import keras.src.datasets.imdb as m
from keras.src.datasets.cifar import load_batch
m.get_file = lambda *a, **k: {str(tmp_path / "imdb.npz")!r}
d = os.path.join({str(cifar_dir)!r}, "cifar-10-batches-py")
train = [load_batch(os.path.join(d, f"data_batch_{{i}}")) for i in range(1, 6)]
cx = np.concatenate([x for x, _ in train]).transpose(0, 2, 3, 1)  # channels_last
cy = np.concatenate([y for _, y in train])
cxt, cyt = load_batch(os.path.join(d, "test_batch"))
(ix, iy), (ixt, iyt) = m.load_data(num_words=20000)
flat = lambda xs: np.concatenate([np.asarray(s, dtype=np.int64) for s in xs])
lens = lambda xs: np.array([len(s) for s in xs])
np.savez({str(out)!r}, cx=cx, cy=cy, cxt=cxt.transpose(0, 2, 3, 1), cyt=cyt, ix=flat(ix),
         il=lens(ix), iy=iy, ixt=flat(ixt), ilt=lens(ixt), iyt=iyt)
"""
    env = {**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    k = np.load(out)
    cifar = real.load_cifar10(None, store)
    raw, _ = real.imdb_raw(store)
    train, test = (text.cut_vocabulary(s, 20_000) for s in (raw.train, raw.test))
    assert np.array_equal(cifar.x_train, k["cx"].astype(np.float32) / 255.0)
    assert np.array_equal(cifar.x_test, k["cxt"].astype(np.float32) / 255.0)
    assert np.array_equal(cifar.y_train, k["cy"].ravel()) and np.array_equal(
        cifar.y_test, k["cyt"].ravel()
    )
    assert np.array_equal(train.tokens, k["ix"]) and np.array_equal(train.lengths(), k["il"])
    assert np.array_equal(test.tokens, k["ixt"]) and np.array_equal(test.lengths(), k["ilt"])
    assert np.array_equal(raw.y_train, k["iy"]) and np.array_equal(raw.y_test, k["iyt"])


# --- synthetic and real: same computation size ------------------------------------------------


BILSTM_VIEW = {
    "num_words": 20_000,
    "ngram_range": 1,
    "maxlen": 100,
    "padding": "pre",
    "truncating": "pre",
}
CHAR_IDS_VIEW = {"lowercase": True, "maxlen": 40, "step": 3, "encoding": "ids"}
# The real sets' sizes (train, test) as each view sees them; Nietzsche's are 40-char windows
# every 3 characters of the whole corpus, and of its last HELD_OUT_CHARS for validation.
REAL_LENGTHS = {
    **{k: (v["train"], v["test"]) for k, v in real_files.SIZES.items()},
    "nietzsche": (real_files.NIETZSCHE_WINDOWS, len(range(0, nietzsche.HELD_OUT_CHARS - 40, 3))),
}


@pytest.mark.parametrize(
    ("dataset", "view"),
    [
        ("mnist", "flat"),
        ("mnist", "image"),
        ("cifar10", None),
        ("imdb", BILSTM_VIEW),
        ("nietzsche", CHAR_IDS_VIEW),
    ],
    ids=["mnist-flat", "mnist-image", "cifar10", "imdb-bilstm", "nietzsche-ids"],
)
def test_synthetic_and_real_data_have_the_same_shapes_and_dtypes(dataset, view, store):
    if dataset not in benchdata.SYNTHETIC_GENERATORS:
        pytest.skip(f"no synthetic generator registered for {dataset} yet")
    synthetic = benchdata.load(dataset, "synthetic", seed=0, view=view)
    options = {"cache_dir": store.cache_dir, "mirror": store.mirror, "sha256": PINNED}
    tiny_real = benchdata.load(dataset, "real", seed=0, view=view, options=options)
    for part in ("x_train", "y_train", "x_test", "y_test"):
        a, b = getattr(synthetic, part), getattr(tiny_real, part)
        # Per sample: the same shape and dtype (the tiny files only have fewer samples).
        assert (a.shape[1:], a.dtype) == (b.shape[1:], b.dtype), part
    # Whole sets: as large as the real ones (documented sizes; the real files are not here).
    assert (len(synthetic.x_train), len(synthetic.x_test)) == REAL_LENGTHS[dataset]
    if dataset == "nietzsche":  # the one-hot width is the real text's character count
        assert synthetic.info["dims"]["chars"] == real_files.NIETZSCHE_VOCAB


# --- configuration and the command line -------------------------------------------------------

# These runs measure nothing: no peak probe, and no waiting for the machine-wide measuring lock.
QUICK_RUN = ("measure.peak_probe=false", "allow_parallel=true")


def test_data_real_composes_and_loads_through_benchdata_load(compose, server, cache):
    serve_all(server)
    cfg = compose(
        "data=real",
        f"data.cache_dir={cache}",
        f"data.mirror={server.url}",
        f"data.sha256.mnist={PINNED['mnist']}",
    )
    assert cfg["data"]["source"] == "real" and cfg["data"]["sha256"]["cifar10"] is None
    data = benchdata.load("mnist", "real", seed=0, view="image", options=cfg["data"])
    assert data.x_train.shape == (12, 28, 28, 1)
    assert data.info["files"] == {"mnist.npz": PINNED["mnist"]}
    assert compose()["data"]["source"] == "synthetic"  # the default stays synthetic


def test_mirror_and_cache_dir_can_come_from_the_environment(compose, monkeypatch, tmp_path):
    monkeypatch.setenv("TWINBENCH_DATA_MIRROR", "http://127.0.0.1:9/x")
    monkeypatch.setenv("TWINBENCH_DATA_DIR", str(tmp_path))
    data = compose("data=real")["data"]
    assert data["mirror"] == "http://127.0.0.1:9/x" and data["cache_dir"] == str(tmp_path)


def test_cli_with_empty_cache_and_unreachable_mirror_fails_with_one_clear_line(
    tmp_path, refused_port
):
    cache = tmp_path / "cache"
    mirror = f"http://127.0.0.1:{refused_port}"
    proc = run_cli(
        "data=real",
        "model=mlp",
        "epochs=1",
        "max_steps=1",
        "cpus=1",
        "measure.peak_probe=false",  # as a user runs it otherwise (no lock bypass)
        f"data.cache_dir={cache}",
        f"data.mirror={mirror}",
        f"hydra.run.dir={tmp_path / 'run'}",
    )
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("twinbench: error: DataUnavailable: mnist.npz")
    assert f"{mirror}/mnist.npz" in lines[-1] and str(cache / "mnist.npz") in lines[-1]
    # Nothing else on stderr but that one error (a summary line may repeat it).
    assert all("DataUnavailable: mnist.npz" in line for line in lines), proc.stderr
    record = read_result(tmp_path / "run")
    assert record["status"] == "failed" and record["error"].startswith("DataUnavailable:")


@pytest.mark.slow
@pytest.mark.parametrize("model", group_choices("model"))
def test_every_workload_trains_on_real_format_data_and_records_the_checksums(model, tmp_path):
    """data=real end to end (torch, one step) for every model config there is."""
    cache = tmp_path / "cache"
    cache.mkdir()
    for name, data in TINY.values():
        (cache / name).write_bytes(data)
    # The tiny files hold a dozen images: a held-out validation split must fit in them.
    yaml = (CONF_DIR / "model" / f"{model}.yaml").read_text()
    hold_out = ["model.hold_out_for_validation=4"] if "hold_out_for_validation:" in yaml else []
    proc = run_cli(
        "data=real",
        f"model={model}",
        "backend=torch",
        "epochs=1",
        "max_steps=1",
        "cpus=1",
        *QUICK_RUN,
        *hold_out,
        f"data.cache_dir={cache}",
        *(f"data.sha256.{key}={value}" for key, value in PINNED.items()),
        "data.mirror=http://127.0.0.1:9",  # never contacted: everything is cached
        f"hydra.run.dir={tmp_path / 'run'}",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = read_result(tmp_path / "run")["data"]
    dataset = data["dataset"]
    name = TINY[dataset][0]
    assert data["source"] == "real" and data["files"] == {name: PINNED[dataset]}
