"""benchmarks/speed_states.py and machine_probe.py: slow stretches in time, inside epochs or
at their edges, and the machine's own kernels."""

import json

import pytest

from benchmarks import machine_probe, speed_levels, speed_states


def epochs_of(*levels: list[float], steps: int = 10) -> list[list[float]]:
    """Epochs whose windows of `steps` steps run at the given levels (seconds per step)."""
    return [[level for level in epoch for _ in range(steps)] for epoch in levels]


def test_a_slow_stretch_that_starts_and_ends_inside_epochs_counts_there():
    epochs = epochs_of([1.0, 1.0, 1.0, 1.4], [1.4, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0])
    result = speed_states.state_changes(epochs, size=10)
    # slow from epoch 1's last window into epoch 2's first: both changes inside an epoch
    assert (result["inside"], result["boundary"]) == (2, 0)
    assert result["slow_share"] == pytest.approx(2 / 11)


def test_a_slow_epoch_changes_state_at_its_boundaries():
    epochs = epochs_of([1.0, 1.0, 1.0], [1.5, 1.5, 1.5], [1.0, 1.0, 1.0])
    result = speed_states.state_changes(epochs, size=10)
    assert (result["inside"], result["boundary"]) == (0, 2)


def test_the_first_window_of_the_run_is_left_out_and_small_wobbles_are_not_states():
    epochs = epochs_of([9.0, 1.0, 1.1, 1.0, 1.12], [1.0, 1.05, 1.0, 1.0, 1.1])
    result = speed_states.state_changes(epochs, size=10)
    assert result["windows"] == 9  # the compile window is gone
    assert (result["inside"], result["boundary"], result["slow_share"]) == (0, 0, 0)


def test_a_fast_level_is_the_lower_quartile_so_a_mostly_slow_run_still_shows_its_states():
    medians = [1.5, 1.0, 1.5, 1.0, 1.5, 1.5, 1.0, 1.5]  # slow five windows in eight
    assert speed_levels.slow_windows(medians) == [m == 1.5 for m in medians]


def test_steps_reads_twinbench_step_files_and_refuses_folders_without_any(tmp_path, capsys):
    run = tmp_path / "sweep" / "job" / "repeat-0"
    run.mkdir(parents=True)
    per_epoch = [[int(x * 1e6) for x in e] for e in epochs_of([1, 1, 1, 2], [2, 1, 1, 1])]
    (run / "steps.json").write_text(json.dumps({"unit": "ns", "per_epoch": per_epoch}))
    out = tmp_path / "states.json"
    assert speed_states.main(["steps", str(tmp_path / "sweep"), "--out", str(out)]) == 0
    assert "2 changes of state inside epochs, 0 at epoch boundaries" in capsys.readouterr().out
    assert json.loads(out.read_text())[str(run)]["inside"] == 2
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match=r"no steps\.json"):
        speed_states.main(["steps", str(tmp_path / "empty")])
    with pytest.raises(SystemExit, match="no such folder"):
        speed_states.main(["steps", str(tmp_path / "missing")])


def test_probe_times_every_kernel_on_every_core(tmp_path, capsys):
    out = tmp_path / "probe.json"
    args = ["probe", "--seconds", "1.2", "--chunk-ms", "5", "--out", str(out)]
    assert speed_states.main(args) == 0
    cores = json.loads(out.read_text())["cores"]
    assert cores and all(set(k) == set(machine_probe.KERNELS) for k in cores.values())
    for per_kernel in cores.values():
        assert all(k["per_second_s"] and k["fast_level_s"] > 0 for k in per_kernel.values())
    assert "changes of state" in capsys.readouterr().out


def test_twin_ratios_compare_the_same_seconds_so_a_shared_slow_second_cancels():
    a = [(0.1, 1.0), (0.5, 1.0), (1.2, 2.0), (1.7, 2.0)]  # second 1 slow for both processes
    b = [(0.2, 1.1), (0.6, 1.1), (1.1, 2.2), (1.6, 2.2)]  # and b 10% slower throughout
    assert machine_probe.twin_ratios(a, b) == pytest.approx([1.1, 1.1])


@pytest.mark.serial  # two processes on both cores, timed against each other's start
@pytest.mark.skipif(len(machine_probe.cpu.allowed_cpus()) < 2, reason="needs two cores")
def test_placement_times_two_fresh_processes_per_round_and_reads_their_huge_pages(tmp_path):
    out = tmp_path / "placement.json"
    args = ["placement", "--rounds", "2", "--seconds", "0.3", "--mib", "8", "--out", str(out)]
    assert speed_states.main(args) == 0
    result = json.loads(out.read_text())
    assert len(result["rounds"]) == 2
    for r in result["rounds"]:
        assert all(level > 0 for level in r["chunk_s"])
        # the two processes ran at once, not one after the other: their seconds are shared
        assert r["started_apart_s"] < 0.3 and len(r["twin_ratio_per_second"]) == 1
        assert all(h is None or 0 <= h <= 9 for h in r["huge_mib"])  # at most the 8 MiB array
    low, high = result["summary"]["twin_ratio_range"]
    assert low <= high


def test_placement_refuses_nonsense_sizes():
    with pytest.raises(SystemExit):
        speed_states.main(["placement", "--mib", "0"])
