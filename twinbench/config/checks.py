"""Command-line checks that run before Hydra launches anything.

Every job of a sweep is composed and checked against twinbench/config/schema.py before the first one
starts, so a bad value in the tenth job is refused before the first has trained. Hydra reports
unknown keys and options as a multi-line error with its search path (and accepts `+foo=1`
silently); users get one line naming the valid choices instead, exit code 2, and nothing is
written.
"""

from __future__ import annotations

import errno
import itertools
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

from twinbench.config import inherited_env, schema
from twinbench.config.choices import unknown_choice
from twinbench.config.folders import check_writable_dir, nearest_existing
from twinbench.config.spec import CONF_DIR, ConfigError, build_spec, group_choices

GROUPS = schema.GROUPS
# Groups that overlay other keys (`# @package _global_`) rather than add a key of their own.
OVERLAYS = ("experiment",)
# Groups whose option is checked by name here but whose node may be written out on the command
# line too (stack.name=... stack.pins=[keras==3.12.0]: a stack without a file, twinbench/stacks/).
NAMED = ("stack",)
DECISION_KEY = "hydra.sweeper.decision."  # a deciding sweep's design (conf/decision/)


def fail(message: str, code: int = 2) -> NoReturn:
    print(f"twinbench: error: {message.removeprefix('ConfigError: ')}", file=sys.stderr, flush=True)
    raise SystemExit(code)


def _values(override) -> list:
    from hydra.core.override_parser.types import Glob

    value = override.value()
    if isinstance(value, Glob):
        return value.filter(group_choices(override.key_or_group))
    if override.is_sweep_override():
        return list(override.sweep_iterator())
    return [value]


def _strings(override) -> list[str]:
    """The job overrides one override expands to, as Hydra's basic sweeper writes them."""
    from hydra.core.override_parser.types import Glob

    key = override.get_key_element()
    if override.is_delete():
        return [key]
    if isinstance(override.value(), Glob):
        return [f"{key}={v}" for v in _values(override)]
    if override.is_sweep_override():
        return [f"{key}={v}" for v in override.sweep_string_iterator()]
    return [f"{key}={override.get_value_element_as_str()}"]


def _check_choice(key: str, value: Any) -> None:
    """A group option must exist before anything is composed (Hydra's own error is long)."""
    if key in (*GROUPS, *OVERLAYS, *NAMED) and str(value) not in group_choices(key):
        raise unknown_choice(key, value, group_choices(key))


# A run writes about 100 kB (records, step times, logs); refusing a disk with less than this free
# before starting beats failing half-way with a partial directory.
MIN_FREE_BYTES = 1 << 20


def check_output_dir(key: str, value: str) -> None:
    """hydra.run.dir / hydra.sweep.dir must be (or become) a directory this process can write.

    For a name Hydra fills in later (a timestamp), the fixed part before it is checked.
    """
    path = Path(value.split("${", 1)[0] or ".").expanduser()
    check_writable_dir(f"{key}={value}", path, f"choose another {key}")
    existing = nearest_existing(path)
    free = shutil.disk_usage(existing).free
    if free < MIN_FREE_BYTES:
        raise ConfigError(
            f"{key}={value}: only {free:,} bytes free on that disk; free some space or choose "
            f"another {key}"
        )


def check_side_dirs(config: dict[str, Any]) -> None:
    """The directories a run writes beside its own: the probes' cache and the temporary
    directory. A file standing there failed only after the peak probes had run (issue 28)."""
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir:
        check_writable_dir(f"TMPDIR={tmpdir}", Path(tmpdir), "unset TMPDIR or point it at one")
    measure = config.get("measure") or {}
    data_cache = measure.get("data_cache_dir")
    if measure.get("data_cache") and data_cache:  # the default folder is only a saving: unchecked
        check_writable_dir(
            f"measure.data_cache_dir={data_cache}",
            Path(data_cache).expanduser(),
            "set measure.data_cache_dir to a writable directory, or measure.data_cache=false",
        )
    if measure.get("peak_probe") or measure.get("speed_of_light"):
        from twinbench.measure.peak import default_cache_dir

        cache = measure.get("peak_cache_dir")
        check_writable_dir(
            f"measure.peak_cache_dir={cache}"
            if cache
            else f"the probes' cache {default_cache_dir()}",
            Path(cache).expanduser() if cache else default_cache_dir(),
            "set measure.peak_cache_dir to a writable directory, or measure.peak_probe=false",
        )


def describe_os_error(exc: OSError) -> str:
    """One line for a failed write: what, where, and what to do."""
    where = f" {exc.filename}" if exc.filename else ""
    hint = {
        errno.ENOSPC: "the disk is full; free some space or write elsewhere "
        "(hydra.run.dir / hydra.sweep.dir)",
        errno.EDQUOT: "the disk quota is used up; free some space or write elsewhere",
        errno.EROFS: "it is read-only; choose another hydra.run.dir / hydra.sweep.dir",
        errno.EACCES: "it is not writable; choose another hydra.run.dir / hydra.sweep.dir",
        errno.ENOTDIR: "a file stands where a directory must be; remove it or choose another "
        "directory",
        errno.EEXIST: "a file stands where a directory must be; remove it or choose another "
        "directory",
    }.get(exc.errno or 0, "finished runs are kept")
    return f"cannot write{where}: {exc.strerror or exc}; {hint}"


def describe_hydra_error(exc: Exception) -> str:
    """Hydra's refusal of an override it cannot apply (a key not in the config without `+`, a
    missing option of one of its own groups such as hydra/launcher) in one line: its message
    without the config search path, and the options, where it lists them, on the same line."""
    text = str(exc).split("\nConfig search path:")[0]
    head, _, options = text.partition("\n\nAvailable options in ")
    line = " ".join(head.split())
    if options:
        group, _, names = options.partition(":")
        line += f"; choose one of {group.strip()}: {', '.join(names.split())}"
    return line


def _parse(args: list[str]) -> list:
    from hydra.core.override_parser.overrides_parser import OverridesParser

    overrides = [a for a in args if ("=" in a and not a.startswith("-")) or a.startswith("~")]
    try:
        return OverridesParser.create().parse_overrides(overrides)
    except Exception as exc:  # Hydra's own grammar errors, kept to their first line
        raise ConfigError(str(exc).splitlines()[0]) from None


def _jobs(parsed: list) -> Iterator[list[str]]:
    """Every job's overrides, in the order Hydra's basic sweeper runs them."""
    yield from (list(job) for job in itertools.product(*(_strings(o) for o in parsed)))


def _check_keys(job: list[str], base: dict[str, Any]) -> None:
    """Every overridden key exists in the composed config: no typos, no silent additions."""
    from frameworks import settings

    for override in job:
        key = override.split("=", 1)[0]
        if key.startswith("~"):
            raise ConfigError(
                f"removing '{key[1:]}' is not supported: every key is needed; set it instead"
            )
        path = key.lstrip("+").split(".")
        if len(path) == 1 and path[0] in (*GROUPS, *OVERLAYS, *NAMED):
            continue
        node: Any = base
        for depth, part in enumerate(path):
            if not isinstance(node, dict) or part not in node:
                where = ".".join(path[:depth])
                if where == "backend":
                    name = base["backend"]["name"]
                    known = ", ".join(settings.SETTINGS.get(name, {}))
                    raise ConfigError(
                        f"backend {name} has no setting '{part}'; its settings are: {known}"
                    )
                valid = ", ".join(sorted(node)) if isinstance(node, dict) else "none"
                name = ".".join(path[: depth + 1])
                hint = _did_you_mean(part, node, where, base if depth == 0 else {})
                raise ConfigError(
                    f"unknown key '{name}';{hint} valid keys"
                    f"{' of ' + where if where else ''}: {valid}"
                )
            node = node[part]


def _did_you_mean(part: str, node: Any, where: str, base: dict[str, Any]) -> str:
    """' did you mean X?' where a key is one level too shallow (`batch_size` for
    `model.batch_size`) or a near spelling of a key where it was given (`epoch`), else ''."""
    import difflib

    nested = [f"{top}.{part}" for top, sub in base.items() if isinstance(sub, dict) and part in sub]
    close = difflib.get_close_matches(part, list(node), n=1) if isinstance(node, dict) else []
    close = [f"{where}.{key}" if where else key for key in close]
    found = nested or close
    return f" did you mean {' or '.join(found)}?" if found else ""


def _compose(overrides: list[str]) -> dict[str, Any]:
    from hydra import compose
    from omegaconf import OmegaConf

    try:
        cfg = compose("config", overrides=overrides)
        return OmegaConf.to_container(cfg, resolve=True)
    except Exception as exc:  # composition or interpolation: Hydra's first line is the reason
        raise ConfigError(str(exc).splitlines()[0]) from None


def _needs_defaults(job: list[str]) -> bool:
    """Whether a job's own overrides reach what only its groups' defaults can check: a key it
    adds (`+key=`, which composes) or a model or optimizer value whose kind its default fixes
    (schema.validate). Any other override either exists in the job's composition or fails it."""
    for override in job:
        key = override.split("=", 1)[0]
        bare = key.lstrip("+~")
        if bare in (*GROUPS, *OVERLAYS, *NAMED):
            continue
        if key.startswith(("+", "~")) or bare.split(".")[0] in ("model", "opt"):
            return True
    return False


def _compose_checked(
    job: list[str], groups: tuple[str, ...], bases: dict[tuple[str, ...], dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the job's config, the defaults it is validated against), every key of the job checked
    to exist. The defaults are the groups composed without value overrides; a job none of whose
    overrides needs them (_needs_defaults) is its own defaults, which saves a composition from
    conf/ per workload and backend of a sweep (0.2 s each). A job that does not compose is
    checked against the defaults, so an unknown key gets its own line, not Hydra's."""

    def defaults() -> dict[str, Any]:
        if groups not in bases:
            bases[groups] = _compose(list(groups))
        return bases[groups]

    if _needs_defaults(job):
        _check_keys(job, defaults())
        return _compose(job), defaults()
    try:
        config = _compose(job)
    except ConfigError:
        _check_keys(job, defaults())
        raise
    _check_keys(job, config)
    return config, config


def _dir_name(job: list[str], excluded: set[str]) -> str:
    return ",".join(sorted(o for o in job if o.split("=", 1)[0].lstrip("+") not in excluded))


def _multirun(args: list[str], parsed: list) -> bool:
    """Whether Hydra will sweep: -m, or an experiment whose yaml sets hydra.mode (README
    command 1, `+experiment=compare`, sweeps without -m), or hydra.mode itself."""
    from omegaconf import OmegaConf

    if {"-m", "--multirun"} & set(args):
        return True
    for o in parsed:
        key = o.key_or_group.lstrip("+~")
        if o.is_sweep_override() or key not in ("hydra.mode", "experiment"):
            continue
        if key == "hydra.mode":
            return str(o.value()) == "MULTIRUN"
        path = CONF_DIR / "experiment" / f"{o.value()}.yaml"
        mode = OmegaConf.select(OmegaConf.load(path), "hydra.mode") if path.is_file() else None
        if mode == "MULTIRUN":
            return True
    return False


def validate_overrides(args: list[str]) -> None:
    """Raise ConfigError for the first impossible value of any job these overrides start."""
    from hydra import initialize_config_dir
    from omegaconf import OmegaConf

    inherited_env.check()  # the shell's variables, before any override is read
    parsed = _parse(args)
    hydra_conf = OmegaConf.to_container(OmegaConf.load(CONF_DIR / "config.yaml").hydra)
    output_dir = "hydra.sweep.dir" if _multirun(args, parsed) else "hydra.run.dir"
    output_value = hydra_conf["sweep" if output_dir == "hydra.sweep.dir" else "run"]["dir"]
    job_overrides = []
    decision: dict[str, Any] = {}
    for o in parsed:
        key = o.key_or_group.lstrip("+~")
        if key.startswith("hydra"):
            if key == output_dir and not o.is_sweep_override() and not o.is_delete():
                output_value = str(o.value())
            if key.startswith(DECISION_KEY) and not o.is_sweep_override() and not o.is_delete():
                decision[key.removeprefix(DECISION_KEY)] = o.value()
            continue
        if o.is_sweep_override() and output_dir == "hydra.run.dir":
            # Hydra's own refusal lists three escaped alternatives; a sweep is what is meant
            raise ConfigError(
                f"{o.input_line} gives several values, which only a sweep runs: add -m "
                f"(python run.py -m {o.input_line} ...)"
            )
        if key == "pricing":  # conf/pricing/ holds the report's tables, not a run's setting
            raise ConfigError(
                "prices are chosen in the report: python -m analysis <results> --pricing NAME "
                f"(NAME one of: {', '.join(group_choices('pricing'))})"
            )
        if not o.is_delete():
            for value in _values(o):
                _check_choice(key, value)
        job_overrides.append(o)

    check_output_dir(output_dir, output_value)
    check_decision(decision)
    excluded = set(hydra_conf["job"]["config"]["override_dirname"]["exclude_keys"])
    bases: dict[tuple[str, ...], dict[str, Any]] = {}
    dirs: dict[str, list[str]] = {}
    configs: list[dict[str, Any]] = []
    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        for job in _jobs(job_overrides):
            groups = tuple(
                o for o in job if o.split("=", 1)[0].lstrip("+") in (*GROUPS, *OVERLAYS, *NAMED)
            )
            config, defaults = _compose_checked(job, groups, bases)
            schema.validate(config, defaults)
            try:
                build_spec(config)
            except (KeyError, TypeError, ValueError) as exc:
                raise ConfigError(str(exc)) from None
            check_side_dirs(config)
            name = _dir_name(job, excluded)
            differ = sorted({o.split("=", 1)[0] for o in set(dirs.get(name, job)) ^ set(job)})
            if differ:  # identical jobs may share: the second finds the first's result
                raise ConfigError(
                    f"jobs '{' '.join(dirs[name])}' and '{' '.join(job)}' would share one run "
                    f"directory ({', '.join(differ)}: left out of directory names); run them "
                    "as separate sweeps, each with its own hydra.sweep.dir"
                )
            dirs[name] = job
            configs.append(config)
    # Every stack of the sweep built and its backends loaded before the first run (issue 43).
    from twinbench.stacks.prepare import prepare_all

    prepare_all(configs)


def check_decision(overrides: dict[str, Any]) -> None:
    """A deciding sweep's design keys (`hydra.sweeper.decision.<key>`) on top of
    conf/decision/default.yaml, checked before any job: the sweeper reads them only once the
    sweep has started, where a bad one ended in a traceback."""
    if not overrides:
        return
    from twinbench.sequential import Design, load_design

    fields = Design.__dataclass_fields__
    for key, value in overrides.items():
        if key not in fields:
            raise ConfigError(f"unknown key '{DECISION_KEY}{key}'; valid keys: {', '.join(fields)}")
        kind = str(fields[key].type)  # "float", "int | None", "str", ...
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if ("float" in kind or "int" in kind) and not number and value is not None:
            raise ConfigError(f"{DECISION_KEY}{key} must be a number, got {value!r}")
    try:
        load_design(**overrides)
    except ValueError as exc:
        problem = str(exc).removeprefix("decision design: ")
        raise ConfigError(f"{DECISION_KEY.rstrip('.')}: {problem}") from None


def check_overrides(args: list[str]) -> None:
    try:
        validate_overrides(args)
    except ConfigError as exc:
        fail(str(exc))


def check_run_options(runs: list[list[str]]) -> None:
    """A subcommand's options, written as the run keys they stand for (`--cpus 0` as `cpus=0`),
    go through the very validation run.py applies, before the subcommand starts any work: a
    second copy of the rules would drift, and an option dropped because it was falsy (0) ran
    `curves` on every core (issue 45). `runs`: the overrides of each distinct run it will start."""
    for overrides in runs:
        check_overrides(overrides)
