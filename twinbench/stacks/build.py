"""Building a stack's environment: once per digest, by uv, as an overlay on the project's.

The overlay: `uv venv` makes an empty environment on the project's Python; a .pth file in its
site-packages appends the project environment's site-packages to sys.path, after its own, so the
stack's packages shadow the project's and everything it does not pin (torch, TensorFlow, JAX,
numpy) is shared, not copied: an environment is megabytes, not gigabytes. (`--system-site-packages`
would not do: a venv's "system" is the base Python below the project's venv, not the venv.)

Sound resolution: uv resolves the stack's pins against every distribution of the project's
environment as constraints (the pinned names left out), so a pin whose dependencies need other
versions than the project runs is refused; only what differs from the project's environment is
installed (--no-deps: the resolution already chose every version). After installing, the
environment's interpreter reads every pin back (readback.py) and `pip check` must find nothing the
project's own environment does not.

All work happens in a `.building-*` folder renamed into place at the end, under a lock per digest:
a failed or killed build leaves no environment behind, and a second build of the same stack
waits for the first and uses its result.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

from twinbench.config.choices import ConfigError
from twinbench.paths import REPO_ROOT
from twinbench.stacks import cache
from twinbench.stacks.definition import CacheSettings, Stack, digest, normalize

OVERLAY_PTH = "_twinbench_project.pth"
STEPS = 5
Say = Callable[[str], None]


class StackError(ConfigError):
    """A stack that cannot be built or cannot run: one line, naming the stack and the pin."""


def say_on_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def installer(settings: CacheSettings) -> str:
    """uv: the configured path, else the one beside this interpreter (pip install uv), else PATH."""
    candidates = [settings.installer] if settings.installer else []
    candidates += [str(Path(sys.executable).parent / "uv"), "uv"]
    for candidate in candidates:
        found = shutil.which(candidate)
        if found:
            return found
    raise StackError(
        f"no uv installer found ({', '.join(candidates)}); pip install -r requirements.txt "
        "installs it, or set stacks.installer to its path"
    )


def base_distributions() -> dict[str, str]:
    """canonical name -> version of every distribution the project's environment runs (the first
    found on sys.path, as import finds it)."""
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(normalize(name), dist.version)
    return found


def site_packages() -> list[str]:
    """The project environment's package folders, which the overlay appends to its sys.path."""
    paths = sysconfig.get_paths()
    return list(dict.fromkeys([paths["purelib"], paths["platlib"]]))


def ensure(stack: Stack, settings: CacheSettings, say: Say = say_on_stderr) -> Path | None:
    """The stack's environment folder, built if not cached; None for the project's own. Raises
    StackError (one line) where it cannot be built."""
    if stack.pinned:
        return None
    root = settings.cache_dir
    key = digest(stack)
    final = root / key
    if (final / cache.META).exists():
        cache.touch(final)
        return final
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StackError(
            f"stacks.cache_dir={root}: cannot create it ({exc.strerror}); set stacks.cache_dir "
            "to a writable folder"
        ) from None
    with _lock(root / f".lock-{key}"):
        if (final / cache.META).exists():  # a concurrent build finished while this one waited
            cache.touch(final)
            return final
        _build(stack, settings, final, say)
    removed = cache.evict(root, settings.max_bytes, keep=final)
    for entry in removed:
        say(f"stack cache: removed {entry.name} ({entry.size_bytes >> 20} MB, least recently used)")
    return final


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(stack: Stack, settings: CacheSettings, final: Path, say: Say) -> None:
    uv = installer(settings)
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix=f"{cache.BUILDING_PREFIX}{final.name}-", dir=final.parent))
    try:
        say(f"stack {stack.name}: building {', '.join(stack.requirements())} in {final}")
        say(f"stack {stack.name}: [1/{STEPS}] resolving against the project's environment")
        resolved = _resolve(stack, uv, settings, work)
        base = base_distributions()
        changed = sorted(f"{n}=={v}" for n, v in resolved.items() if base.get(n) != v)
        say(f"stack {stack.name}: [2/{STEPS}] creating the overlay environment")
        env = work / "env"
        _run(stack, uv, ["venv", "--quiet", "--python", sys.executable, str(env)], settings)
        python = env / "bin" / "python"
        own = _interpreter_site(python, settings.build_timeout_s)
        Path(own, OVERLAY_PTH).write_text("\n".join(site_packages()) + "\n")
        if changed:
            say(f"stack {stack.name}: [3/{STEPS}] installing {len(changed)}: {', '.join(changed)}")
            install = ["pip", "install", "--quiet", "--no-deps", "--python", str(python), *changed]
            _run(stack, uv, [*install, *settings.installer_args], settings, changed)
        else:  # the installer refuses an empty list; the overlay alone is the point (A/A)
            say(f"stack {stack.name}: [3/{STEPS}] installing nothing: every pin is the project's")
        say(f"stack {stack.name}: [4/{STEPS}] reading the pins back in its interpreter")
        names = {_canonical(c.split("==")[0]) for c in changed}
        readback = _read_back(stack, python, own, settings.build_timeout_s, names)
        say(f"stack {stack.name}: [5/{STEPS}] checking every requirement (pip check)")
        _pip_check(stack, python, set(resolved), settings.build_timeout_s)
        meta = {
            "name": stack.name,
            "digest": final.name,
            "pins": stack.pins,
            "installed": changed,
            "read_back": readback,
            "base_interpreter": sys.executable,
            "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "build_s": round(time.perf_counter() - started, 2),
        }
        # the meta file marks a complete environment: written last, inside the folder to rename
        for item in env.iterdir():
            item.rename(work / item.name)
        env.rmdir()
        meta["size_bytes"] = cache.folder_size(work)
        (work / cache.META).write_text(json.dumps(meta, indent=2) + "\n")
        os.rename(work, final)  # atomic: the environment appears whole or not at all
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    cache.touch(final)
    say(f"stack {stack.name}: built in {meta['build_s']:.1f} s ({meta['size_bytes'] >> 20} MB)")


def _interpreter_site(python: Path, timeout: float) -> str:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    out = subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, timeout=timeout, check=True
    )
    return out.stdout.strip()


def _resolve(stack: Stack, uv: str, settings: CacheSettings, work: Path) -> dict[str, str]:
    """Every distribution the pins need, as uv resolves them with the project's environment
    as constraints (the pins' own names left out)."""
    requirements = work / "requirements.in"
    requirements.write_text("\n".join(stack.requirements()) + "\n")
    constraints = work / "constraints.txt"
    base = sorted(base_distributions().items())
    constraints.write_text("".join(f"{n}=={v}\n" for n, v in base if n not in stack.pins))
    args = ["pip", "compile", str(requirements), "--constraint", str(constraints), "--quiet"]
    args += ["--no-header", "--no-annotate", "--python", sys.executable]
    out = _run(stack, uv, [*args, *settings.installer_args], settings)
    resolved = {}
    for line in out.splitlines():
        name, sep, version = line.strip().partition("==")
        if sep and not line.startswith("#"):
            resolved[normalize(name)] = version.split(";")[0].strip()
    return resolved


def _run(
    stack: Stack, uv: str, args: list[str], settings: CacheSettings, pins: list[str] | None = None
) -> str:
    try:
        done = subprocess.run(
            [uv, *args], capture_output=True, text=True, timeout=settings.build_timeout_s
        )
    except subprocess.TimeoutExpired:
        raise StackError(
            f"stack {stack.name}: uv {args[0]} {args[1] if len(args) > 1 else ''} took longer than "
            f"stacks.build_timeout_s={settings.build_timeout_s:g} s; nothing was kept"
        ) from None
    if done.returncode != 0:
        raise StackError(_failure(stack, done.stderr or done.stdout, pins))
    return done.stdout


def _failure(stack: Stack, text: str, pins: list[str] | None = None) -> str:
    """One line: which pin failed and uv's reason."""
    lowered = text.lower()
    asked = stack.requirements()
    named = [r for r in asked if r.lower() in lowered]
    for requirement in asked:  # else the first pin uv names at all
        name = re.escape(requirement.split("==")[0])
        if requirement not in named and re.search(rf"\b{name}\b", lowered):
            named.append(requirement)
    culprit = named[0] if named else ", ".join(pins or asked)
    reasons = [
        line.strip(" ╰─▶×│").strip()
        for line in text.splitlines()
        if line.strip(" ╰─▶×│").strip() and not line.lstrip().startswith(("hint", "help"))
    ]
    reason = next((r for r in reasons if "because" in r.lower()), reasons[-1] if reasons else "")
    reason = reason.removeprefix("cause:").strip()
    return f"stack {stack.name}: pin {culprit} cannot be installed: {reason[:300]}"


def _read_back(
    stack: Stack, python: Path, own_site: str, timeout: float, installed: set[str]
) -> dict[str, str]:
    """Every pin as the new interpreter loads it, from its own folder, its own folder first on
    sys.path: else the overlay does not do what it is for. A pin the project's environment
    already holds at that version (`installed` lacks it) loads from the project's."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    cmd = [str(python), "-m", "twinbench.stacks.readback", *sorted(stack.pins)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if done.returncode != 0:
        why = _last(done.stderr)
        raise StackError(f"stack {stack.name}: its interpreter fails to start: {why}")
    found = json.loads(done.stdout)
    from twinbench.stacks.readback import mismatches

    wrong = mismatches(stack.pins, found["versions"])
    wrong += [
        f"{n} loads from {v['location']}, not the stack's folder"
        for n, v in sorted(found["versions"].items())
        if v["location"] and Path(v["location"]) != Path(own_site) and _canonical(n) in installed
    ]
    path = found["sys_path"]
    project = [p for p in site_packages() if p in path]
    if own_site not in path or any(path.index(p) < path.index(own_site) for p in project):
        wrong.append("the project's packages come before the stack's on sys.path")
    if wrong:
        raise StackError(f"stack {stack.name}: {'; '.join(wrong)}")
    return {n: v["version"] for n, v in found["versions"].items()}


def _canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares them (tensorflow_cpu is tensorflow-cpu)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _pip_check(stack: Stack, python: Path, resolved: set[str], timeout: float) -> None:
    """Requirements the overlay breaks: `pip check` in it, less what the project's own
    environment already reports."""

    def problems(interpreter: str) -> set[str]:
        done = subprocess.run(
            [interpreter, "-m", "pip", "check"], capture_output=True, text=True, timeout=timeout
        )
        return {line for line in done.stdout.splitlines() if line and "No broken" not in line}

    new = problems(str(python)) - problems(sys.executable)
    if new:
        blamed = sorted(new)[0]
        pin = next((r for r in stack.requirements() if r.split("==")[0] in blamed.lower()), None)
        raise StackError(
            f"stack {stack.name}: pin {pin or ', '.join(stack.requirements())} breaks a "
            f"requirement of the project's environment: {blamed}"
        )


def _last(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"
