"""Packages import one way: down the layers below, function-level imports included.

Bottom to top (docs/architecture.md draws the same picture):

    paths        twinbench.paths: where conf/ and results/ live; twinbench.confidence: the
                 confidence sequence's arithmetic (numpy only); both import nothing of the
                 project
    leaves       models (with their FLOP rules and the model-config loader), benchdata, and the
                 framework-free base the analysis reads too: twinbench.result, .stats,
                 .sequential, .ui
    frameworks   one adapter per backend, and the registry
    core         twinbench.machine, .config, .worker, .measure, .launch, .parity,  | analysis
                 .stacks
    entry        twinbench.cli (the only place that imports both core and analysis),
                 hydra_plugins, benchmarks

A module may import its own package and any layer below its own. Two leaves never import each
other. The core and the analysis are siblings that never import each other, and the analysis takes
nothing from frameworks but the framework-free registry (and the certificates' fingerprint
beside it).
"""

from __future__ import annotations

import shutil

from tests.test_import_graph import import_graph
from twinbench.paths import REPO_ROOT

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("paths", ("twinbench.paths", "twinbench.confidence", "twinbench")),
    (
        "leaves",
        (
            "models",
            "benchdata",
            "twinbench.result",
            "twinbench.stats",
            "twinbench.sequential",
            "twinbench.ui",
        ),
    ),
    ("frameworks", ("frameworks",)),
    (
        "core",
        (
            "twinbench.machine",
            "twinbench.config",
            "twinbench.worker",
            "twinbench.measure",
            "twinbench.launch",
            "twinbench.parity",
            "twinbench.stacks",
            "analysis",
        ),
    ),
    ("entry", ("twinbench.cli", "hydra_plugins", "benchmarks")),
)
CORE = tuple(u for u in LAYERS[3][1] if u != "analysis")
# framework-free: the backends by name, and what a parity certificate fingerprints
ANALYSIS_MAY_USE_FROM_FRAMEWORKS = ("frameworks.registry", "frameworks.certified")


def unit_of(module: str) -> tuple[int, str]:
    """(layer index, unit) of a module: the longest unit name that is the module or its parent."""
    best: tuple[int, str] | None = None
    for index, (_, units) in enumerate(LAYERS):
        for unit in units:
            inside = module == unit or module.startswith(unit + ".")
            if inside and (best is None or len(unit) > len(best[1])):
                best = (index, unit)
    if best is None:
        raise AssertionError(f"{module} belongs to no layer: add its package to LAYERS")
    return best


def _within(module: str, units: tuple[str, ...]) -> bool:
    return any(module == u or module.startswith(u + ".") for u in units)


def violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import that runs against the layers, as 'importer -> imported: why'."""
    found = []
    for module, targets in sorted(graph.items()):
        layer, unit = unit_of(module)
        for target in sorted(targets):
            t_layer, t_unit = unit_of(target)
            why = None
            if t_layer > layer:
                why = f"{LAYERS[layer][0]} imports {LAYERS[t_layer][0]}, a layer above"
            elif t_layer == layer and t_unit != unit:
                if layer == 1:
                    why = "two leaves import each other"
                elif (unit == "analysis") != (t_unit == "analysis"):
                    why = "the core and the analysis import each other"
            elif (
                unit == "analysis"
                and t_unit == "frameworks"
                and not _within(target, ANALYSIS_MAY_USE_FROM_FRAMEWORKS)
            ):
                why = "the analysis imports a framework adapter, not the registry"
            if why:
                found.append(f"{module} -> {target}: {why}")
    return found


def test_packages_import_only_down_the_layers():
    found = violations(import_graph())
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_every_module_belongs_to_a_layer():
    for module in import_graph():
        unit_of(module)  # raises for a module no layer names


def _planted_copy(tmp_path, plant: dict[str, str]):
    """The project's packages copied, with one line appended to each named file."""
    for package in ("analysis", "benchdata", "benchmarks", "frameworks", "models", "twinbench"):
        shutil.copytree(
            REPO_ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    for relative, line in plant.items():
        path = tmp_path / relative
        path.write_text(path.read_text() + line)
    return import_graph(tmp_path)


def test_a_planted_back_edge_fails_the_check_even_behind_a_function(tmp_path):
    graph = _planted_copy(
        tmp_path,
        {
            "models/mlp.py": "\n\ndef _late():\n    from twinbench.launch import runner\n",
            "twinbench/worker/main.py": "\n\ndef _late():\n    from analysis.load import table\n",
            "analysis/load/records.py": "\nfrom frameworks.torch_native import backend\n",
            "benchdata/batching.py": "\nimport models.mlp\n",
        },
    )
    assert violations(graph) == [
        "analysis.load.records -> frameworks.torch_native.backend: the analysis imports a "
        "framework adapter, not the registry",
        "benchdata.batching -> models.mlp: two leaves import each other",
        "models.mlp -> twinbench.launch.runner: leaves imports core, a layer above",
        "twinbench.worker.main -> analysis.load.table: the core and the analysis import each other",
    ]


def test_the_entry_point_is_where_core_and_analysis_meet():
    graph = import_graph()
    meets = sorted(
        module
        for module, targets in graph.items()
        if any(_within(t, CORE) for t in targets)
        and any(_within(t, ("analysis",)) for t in targets)
    )
    assert meets and all(_within(m, ("twinbench.cli", "benchmarks")) for m in meets), meets
