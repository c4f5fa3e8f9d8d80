"""A real one-node Slurm cluster for the tests, on this machine, torn down afterwards.

Debian's `slurm-wlm` and `munge` packages (`.ci/run` installs them) give every daemon; this
module writes a slurm.conf for this host with state, spool, logs and the munge socket under a
temporary folder, starts munged, slurmctld and slurmd in the foreground as children of the test
process, and waits for `sinfo` to show the node idle. `stop()` kills exactly those three
processes. Clients (sbatch, squeue, scontrol and submitit, which calls them) find the cluster
through SLURM_CONF in `env()`.

Accounting is off (`accounting_storage/none`): there is no slurmdbd, so `sacct` answers with an
error and submitit, which polls it, falls back to the result files its jobs write.
"""

from __future__ import annotations

import math
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "sinfo", "scontrol")
START_TIMEOUT_S = 60
REQUIRE_ENV = "TWINBENCH_REQUIRE_SLURM"  # set: a cluster that fails to start fails the tests


def missing() -> str | None:
    """Why a cluster cannot start here (a skip reason), or None."""
    absent = [p for p in DAEMONS + CLIENTS if shutil.which(p) is None]
    if absent:
        return (
            f"Slurm is not installed ({', '.join(absent)} missing): apt-get install slurm-wlm munge"
        )
    if os.geteuid() != 0:
        return "the one-node Slurm cluster needs root (slurmd starts jobs as their users)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _node_line() -> str:
    """This host as slurmd sees it (CPUs, sockets, cores, threads, memory)."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout
    return next(line for line in out.splitlines() if line.startswith("NodeName="))


@dataclass
class SlurmCluster:
    root: Path
    host: str = field(default_factory=socket.gethostname)
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    @property
    def munge_socket(self) -> Path:
        return self.root / "munge" / "munge.socket"

    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def run(self, *cmd: str, check: bool = True) -> str:
        done = subprocess.run(cmd, capture_output=True, text=True, env=self.env(), timeout=30)
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip() or done.stdout.strip()}")
        return done.stdout

    def write_config(self) -> None:
        for sub in ("munge", "state", "spool", "log"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        (self.root / "munge").chmod(0o700)
        key = self.root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))  # this cluster's own key: nothing else can talk to it
        key.chmod(0o400)
        node = _node_line()
        log = self.root / "log"
        self.conf.write_text(
            "\n".join(
                [
                    "ClusterName=twinbench-test",
                    f"SlurmctldHost={self.host}",
                    f"SlurmctldPort={_free_port()}",
                    f"SlurmdPort={_free_port()}",
                    "SlurmUser=root",
                    "SlurmdUser=root",
                    "AuthType=auth/munge",
                    "CredType=cred/munge",
                    f"AuthInfo=socket={self.munge_socket}",
                    f"StateSaveLocation={self.root / 'state'}",
                    f"SlurmdSpoolDir={self.root / 'spool'}",
                    f"SlurmctldPidFile={self.root / 'slurmctld.pid'}",
                    f"SlurmdPidFile={self.root / 'slurmd.pid'}",
                    f"SlurmctldLogFile={log / 'slurmctld.log'}",
                    f"SlurmdLogFile={log / 'slurmd.log'}",
                    "ProctrackType=proctrack/linuxproc",
                    "TaskPlugin=task/affinity",
                    "SelectType=select/cons_tres",
                    "SelectTypeParameters=CR_Core",
                    "AccountingStorageType=accounting_storage/none",
                    "JobAcctGatherType=jobacct_gather/none",
                    "JobCompType=jobcomp/none",
                    "MpiDefault=none",
                    "ReturnToService=2",
                    "JobRequeue=1",
                    # Fast turnaround: the tests wait on these.
                    "SchedulerParameters=sched_interval=1",
                    "MessageTimeout=10",
                    "KillWait=5",
                    "MinJobAge=300",
                    "InactiveLimit=0",
                    f"{node} State=UNKNOWN",
                    f"PartitionName=debug Nodes={self.host} Default=YES MaxTime=INFINITE State=UP",
                    "",
                ]
            )
        )

    def _start(self, name: str, cmd: list[str]) -> None:
        log = open(self.root / "log" / f"{name}.out", "w")  # noqa: SIM115 - lives with the daemon
        self.processes[name] = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env(), start_new_session=True
        )

    def start(self) -> SlurmCluster:
        self.write_config()
        munge = self.root / "munge"
        self._start(
            "munged",
            ["munged", "--foreground", "--force", f"--socket={self.munge_socket}",
             f"--key-file={munge / 'munge.key'}", f"--pid-file={munge / 'munged.pid'}",
             f"--log-file={self.root / 'log' / 'munged.log'}", f"--seed-file={munge / 'seed'}"],
        )  # fmt: skip
        self._wait(lambda: self.munge_socket.exists(), "munged to open its socket")
        self._start("slurmctld", ["slurmctld", "-D", "-i", "-f", str(self.conf)])
        self._wait(lambda: self._answers("scontrol", "ping"), "slurmctld to answer")
        self._start("slurmd", ["slurmd", "-D", "-f", str(self.conf), "-N", self.host])
        self._wait(self._idle, "the node to become idle")
        return self

    def _answers(self, *cmd: str) -> bool:
        done = subprocess.run(cmd, capture_output=True, text=True, env=self.env(), timeout=30)
        return done.returncode == 0 and "DOWN" not in done.stdout

    def _idle(self) -> bool:
        try:
            state = self.run("sinfo", "-h", "-N", "-o", "%t").split()
        except RuntimeError:
            return False
        return state == ["idle"]

    def _wait(self, ready, what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            dead = [n for n, p in self.processes.items() if p.poll() is not None]
            if dead:
                raise RuntimeError(f"{dead[0]} exited while waiting for {what}: {self.logs()}")
            if ready():
                return
            time.sleep(0.5)
        raise RuntimeError(f"timed out waiting for {what}: {self.logs()}")

    def logs(self) -> str:
        tails = []
        for path in sorted((self.root / "log").glob("*")):
            lines = path.read_text(errors="replace").splitlines()[-8:]
            tails.append(f"--- {path.name}\n" + "\n".join(lines))
        return "\n".join(tails)

    def release(self, job_id: str) -> None:
        """Let a requeued job start now: Slurm holds a requeued job back for two minutes
        (Reason=BeginTime), which real preemption tolerates and a test cannot afford."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            state = self.run("squeue", "-h", "-j", job_id, "-o", "%T", check=False).strip()
            if state == "PENDING":
                # slurmd revoked the job's credential when it was requeued, and it compares a
                # new credential's creation time with that, to the second: a start in the same
                # second is refused ("Job credential revoked") and the job ends FAILED. Start
                # it in the next second, as Slurm's own hold would, minutes later.
                time.sleep(math.floor(time.time()) + 1.05 - time.time())
                self.run("scontrol", "update", f"JobId={job_id}", "StartTime=now")
                return
            time.sleep(0.5)
        raise RuntimeError(f"job {job_id} did not return to the queue: {self.logs()}")

    def stop(self) -> None:
        """Cancel every job, then kill the daemons this cluster started (nothing else)."""
        if "slurmctld" in self.processes and self.processes["slurmctld"].poll() is None:
            subprocess.run(["scancel", "--user", "root"], env=self.env(),
                           capture_output=True, timeout=30)  # fmt: skip
            # Let slurmd's step daemons end the cancelled jobs before slurmd goes.
            deadline = time.monotonic() + START_TIMEOUT_S
            while time.monotonic() < deadline and self.run("squeue", "-h", check=False).strip():
                time.sleep(0.5)
        for name in reversed(DAEMONS):
            proc = self.processes.pop(name, None)
            if proc is None or proc.poll() is not None:
                continue
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def cluster() -> Iterator[SlurmCluster]:
    """Body of a pytest fixture: a running cluster, or a skip saying why there is none."""
    import pytest

    reason = missing()
    if reason:
        pytest.skip(reason)
    # Short path under /tmp: the munge socket's path must fit a Unix socket address.
    root = Path(tempfile.mkdtemp(prefix="twinbench-slurm-", dir="/tmp"))
    slurm = SlurmCluster(root)
    try:
        slurm.start()
    except (RuntimeError, subprocess.SubprocessError, OSError) as exc:
        slurm.stop()
        # CI installs Slurm and sets REQUIRE_ENV: there a cluster that will not start is a bug.
        if os.environ.get(REQUIRE_ENV):
            raise
        pytest.skip(f"a one-node Slurm cluster did not start here: {exc}")
    try:
        yield slurm
    finally:
        slurm.stop()
        shutil.rmtree(root, ignore_errors=True)
