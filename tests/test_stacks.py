"""Framework releases as an axis (issue 43): stacks built by uv as overlays, cached by their
pins' hash, the worker on the stack's interpreter, the record's pins read back there, run_key
apart per stack, and every bad input refused in one line before a run starts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import read_result, run_cli
from twinbench.config.choices import ConfigError, group_choices
from twinbench.paths import REPO_ROOT
from twinbench.result import results
from twinbench.stacks import build, cache, definition, prepare, readback

TINY_RUN = ("model=mlp", "max_steps=2", "epochs=1", "measure.peak_probe=false", "quiet=true")


def _read_back_in(env: Path, *names: str) -> dict:
    done = subprocess.run(
        [str(env / "bin" / "python"), "-m", "twinbench.stacks.readback", *names],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    return json.loads(done.stdout)


# ------------------------------------------------------------------ what a stack is


@pytest.mark.parametrize(
    ("node", "message"),
    [
        ({"name": "x", "pins": ["six>=1.0"]}, "stack x: pin 'six>=1.0' is not an exact pin"),
        ({"name": "x", "pins": ["six"]}, "stack x: pin 'six' is not an exact pin"),
        ({"name": "x", "pins": ["six==1", "Six==2"]}, "stack x: Six is pinned twice"),
        ({"name": "pinned", "pins": ["six==1.16.0"]}, "stack pinned is the project's own"),
        ({"name": "x", "pins": []}, "stack x pins nothing"),
        ({"name": "x", "pins": {"six": "1"}}, "stack x: pins must be a list of name==version"),
    ],
)
def test_a_stack_is_exact_pins_or_refused_in_one_line(node, message):
    with pytest.raises(ConfigError) as err:
        definition.from_config(node)
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_every_shipped_stack_is_well_formed():
    for name in group_choices("stack"):
        definition.from_config(definition.load(name))
    assert definition.from_config(definition.load("pinned")).pinned
    assert definition.from_config(definition.load("keras-3.12")).pins == {"keras": "3.12.0"}


def test_run_key_tells_stacks_apart_and_keeps_the_old_keys_on_pinned():
    config = {"backend": {"name": "torch"}, "model": {"name": "mlp"}, "cpus": 1}
    on = {
        name: {**config, "stack": {"name": name, "pins": pins}}
        for name, pins in (("pinned", []), ("a", ["six==1.16.0"]), ("b", ["six==1.15.0"]))
    }
    keys = {name: results.run_key(c) for name, c in on.items()}
    assert len(set(keys.values())) == 3
    assert keys["pinned"] == results.run_key(config)  # records from before stacks still match
    cache_elsewhere = {**on["a"], "stacks": {"cache_dir": "/elsewhere"}}
    assert results.run_key(cache_elsewhere) == keys["a"]


# ------------------------------------------------------------------ built environments


def test_each_stack_runs_its_own_version_over_the_projects(tiny_stacks):
    from importlib import metadata

    assert metadata.version("six") not in ("1.16.0", "1.15.0")  # the project's own differs
    for name, (node, env) in tiny_stacks["stacks"].items():
        asked = definition.from_config(node).pins["six"]
        found = _read_back_in(env, "six")
        six = found["versions"]["six"]
        assert six["version"] == asked, name
        own_site = Path(six["location"])
        assert env in own_site.parents, name  # loaded from the stack's folder
        path, project = found["sys_path"], build.site_packages()[0]
        assert path.index(str(own_site)) < path.index(project)  # the stack's first, then ours
        meta = json.loads((env / cache.META).read_text())
        assert meta["read_back"] == {"six": asked}
        assert meta["installed"] == [f"six=={asked}"]  # nothing but the pin: an overlay
    leftovers = [p for p in tiny_stacks["cache_dir"].iterdir() if p.name.startswith(".building")]
    assert leftovers == []


def test_a_second_build_is_the_cached_environment_at_once(tiny_stacks, monkeypatch):
    node, env = tiny_stacks["stacks"]["six-1.16"]
    settings = definition.cache_settings({"cache_dir": str(tiny_stacks["cache_dir"])})

    def no_installer(_settings):
        raise AssertionError("a cached stack must not call uv")

    monkeypatch.setattr(build, "installer", no_installer)
    started = time.perf_counter()
    assert build.ensure(definition.from_config(node), settings) == env
    assert time.perf_counter() - started < 1.0


def test_the_worker_records_the_pins_it_reads_back(tiny_stacks, tmp_path):
    node, env = tiny_stacks["stacks"]["six-1.15"]
    proc = run_cli(
        *TINY_RUN,
        "cpus=1",
        f"stack.name={node['name']}",
        f'stack.pins=["{node["pins"][0]}"]',
        f"stacks.cache_dir={tiny_stacks['cache_dir']}",
        f"hydra.run.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    record = read_result(tmp_path)
    assert record["stack"]["name"] == "six-1.15"
    assert record["stack"]["pins"] == {"six": "1.15.0"}
    assert record["stack"]["interpreter"]["prefix"] == str(env)
    assert set(record["stack"]["versions"]) == {"torch"}  # the backend's packages, read back
    assert record["run_key"] == results.run_key(
        {k: v for k, v in record["config"].items() if k not in ("repeat", "run_key", "pair_id")}
    )
    # a stack without a certificate of its own says so, with the command that makes one
    assert record["parity"]["status"] == "not checked"
    assert record["parity"]["command"].endswith("--stack six-1.15")


def test_a_pin_that_does_not_hold_fails_the_worker():
    # this interpreter runs the project's six, not 1.16.0: the record never claims otherwise
    with pytest.raises(RuntimeError, match=r"stack s: six asked 1\.16\.0, runs "):
        readback.stack_block({"name": "s", "pins": ["six==1.16.0"]})


# ------------------------------------------------------------------ refusals, before any run


def _refused(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stdout[-1000:] + proc.stderr[-2000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("twinbench: error:")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_an_unknown_stack_is_refused(tmp_path):
    line = _refused(run_cli(*TINY_RUN, "stack=keras-9", f"hydra.run.dir={tmp_path}/run"))
    assert line.startswith("twinbench: error: unknown stack 'keras-9'; choose one of: ")
    assert "pinned" in line
    assert not (tmp_path / "run").exists()


def test_a_pin_the_registry_lacks_is_refused_and_leaves_nothing(tmp_path):
    cache_dir = tmp_path / "cache"
    proc = run_cli(
        *TINY_RUN,
        "stack.name=ghost",
        'stack.pins=["six==0.0.999"]',
        f"stacks.cache_dir={cache_dir}",
        f"hydra.run.dir={tmp_path}/run",
    )
    line = _refused(proc)
    assert line.startswith("twinbench: error: stack ghost: pin six==0.0.999 cannot be installed")
    assert "no version of six==0.0.999" in line
    assert [p.name for p in cache_dir.iterdir() if not p.name.startswith(".lock")] == []
    assert not (tmp_path / "run").exists()


def test_a_cache_folder_that_is_not_writable_is_refused(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    proc = run_cli(
        *TINY_RUN,
        "stack=keras-3.12",
        f"stacks.cache_dir={blocker}",
        f"hydra.run.dir={tmp_path}/run",
    )
    line = _refused(proc)
    assert line == (
        f"twinbench: error: stacks.cache_dir={blocker} is a file, not a directory; set "
        "stacks.cache_dir to a writable folder"
    )


def test_a_sweep_with_one_bad_stack_runs_none(tiny_stacks, tmp_path):
    proc = run_cli(
        "-m",
        *TINY_RUN,
        "stack.name=mixed",
        'stack.pins=["six==1.16.0"],["six==0.0.999"]',
        f"stacks.cache_dir={tiny_stacks['cache_dir']}",
        f"hydra.sweep.dir={tmp_path}/sweep",
    )
    assert "pin six==0.0.999 cannot be installed" in _refused(proc)
    assert not (tmp_path / "sweep").exists() or not list((tmp_path / "sweep").rglob("*.json"))


def _fake_keras(tiny_stacks, tmp_path, body: str) -> tuple[definition.Stack, Path]:
    """A copy of a tiny stack with a `keras` of its own that shadows the project's."""
    node, env = tiny_stacks["stacks"]["six-1.16"]
    copy = tmp_path / "env"
    shutil.copytree(env, copy, symlinks=True)
    (copy / prepare.CHECKS_FILE).unlink(missing_ok=True)
    site = next(copy.glob("lib/python*/site-packages"))
    (site / "keras").mkdir()
    (site / "keras" / "__init__.py").write_text(body)
    return definition.from_config(node), copy


def test_a_stack_whose_keras_cannot_load_its_backend_is_refused(tiny_stacks, tmp_path):
    stack, env = _fake_keras(tiny_stacks, tmp_path, "raise ImportError('no torch in this one')\n")
    with pytest.raises(build.StackError) as err:
        prepare.check_backend(stack, env, "keras_torch", 120, lambda _: None)
    assert str(err.value) == (
        "stack six-1.16 (six==1.16.0) cannot load backend keras_torch: ImportError: no torch in "
        "this one"
    )


def test_a_keras_that_picks_another_runtime_is_refused(tiny_stacks, tmp_path):
    body = (
        "__version__ = '2.15.0'\n"
        "class backend:\n"
        "    @staticmethod\n"
        "    def backend():\n"
        "        return 'tensorflow'\n"
    )
    stack, env = _fake_keras(tiny_stacks, tmp_path, body)
    with pytest.raises(build.StackError, match=r"keras 2\.15\.0 runs on tensorflow, not torch"):
        prepare.check_backend(stack, env, "keras_torch", 120, lambda _: None)
    # the answer is kept beside the environment: asked once
    assert "keras_torch" in json.loads((env / prepare.CHECKS_FILE).read_text())


# ------------------------------------------------------------------ the cache


def _entry(root: Path, name: str, size: int, used: float) -> Path:
    path = root / name
    path.mkdir(parents=True)
    (path / cache.META).write_text(json.dumps({"name": name, "size_bytes": size, "pins": {}}))
    (path / cache.LAST_USED).touch()
    os.utime(path / cache.LAST_USED, (used, used))
    return path


def test_the_cache_evicts_the_least_recently_used_past_its_cap(tmp_path):
    now = time.time()
    old, mid, new = (
        _entry(tmp_path, n, 100, now - age) for n, age in (("o", 30), ("m", 20), ("n", 10))
    )
    assert [e.name for e in cache.entries(tmp_path)] == ["n", "m", "o"]
    removed = cache.evict(tmp_path, max_bytes=200)
    assert [e.name for e in removed] == ["o"]
    assert not old.exists() and mid.exists() and new.exists()
    # the one about to be used stays even when it alone is the oldest
    cache.touch(new)
    os.utime(mid / cache.LAST_USED, (now - 100, now - 100))
    assert [e.name for e in cache.evict(tmp_path, max_bytes=50, keep=mid)] == ["n"]
    assert mid.exists()


def test_the_stacks_command_lists_and_clears(tmp_path, capsys):
    from twinbench.cli.main import main

    now = time.time()
    _entry(tmp_path, "a", 3 << 20, now - 5)
    _entry(tmp_path, "b", 1 << 20, now - 50)
    assert main(["stacks", "list", "--cache-dir", str(tmp_path)]) == 0
    listing = capsys.readouterr().out
    assert listing.splitlines()[0].startswith(f"{tmp_path}: 2 environment(s), 4.0 MB of ")
    assert [line.split()[0] for line in listing.splitlines()[1:]] == ["a", "b"]
    # A typo removed nothing and said "removed 0 environment(s)", which reads as done.
    with pytest.raises(SystemExit) as exit_:
        main(["stacks", "clear", "keras-312", "--cache-dir", str(tmp_path)])
    assert exit_.value.code == 2
    assert "unknown stack 'keras-312'; did you mean keras-3.12? choose one of: a, b, " in (
        capsys.readouterr().err
    )
    assert main(["stacks", "clear", "b", "--cache-dir", str(tmp_path)]) == 0  # cached, no yaml
    assert "removed 1 environment(s), 1.0 MB" in capsys.readouterr().out
    assert [e.name for e in cache.entries(tmp_path)] == ["a"]
    assert main(["stacks", "clear", "--cache-dir", str(tmp_path)]) == 0
    assert cache.entries(tmp_path) == []


def test_parity_on_an_unknown_stack_is_refused_before_any_stage():
    proc = subprocess.run(
        [sys.executable, "-m", "twinbench.parity", "mlp", "--stack", "keras-9"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert _refused(proc).startswith("twinbench: error: unknown stack 'keras-9'; choose one of:")
    assert "stage" not in proc.stdout + proc.stderr


def test_a_stack_of_the_projects_own_versions_builds_an_overlay_that_installs_nothing(tmp_path):
    """The release axis' A/A stack (conf/stack/keras-3.15.yaml): every pin already the project's.
    The installer refuses an empty install, and the read-back must accept a pin that loads from
    the project's environment at the asked version (it failed on both before)."""
    from importlib import metadata

    own = metadata.version("six")
    settings = definition.cache_settings({"cache_dir": str(tmp_path)})
    said: list[str] = []
    node = {"name": "six-own", "pins": [f"six=={own}"]}
    env = build.ensure(definition.from_config(node), settings, said.append)
    meta = json.loads((env / cache.META).read_text())
    assert meta["installed"] == [] and meta["read_back"] == {"six": own}
    assert any("installing nothing" in line for line in said)
    found = _read_back_in(env, "six")
    assert Path(found["versions"]["six"]["location"]) in [Path(p) for p in build.site_packages()]
