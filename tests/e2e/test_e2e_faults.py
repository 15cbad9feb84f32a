"""``ctl apply`` with the s3 backend behind a fault-injecting proxy: throttled state and journal
writes, reset connections and a lost reply to the lock request. The apply converges, the state
holds every resource exactly once, and no lock or journal is left behind.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from tests.e2e.test_e2e_backends import LIFECYCLE, project_for, resources, s3_remote
from tests.fault_proxy import FaultProxy
from tests.servers import MotoServer


def test_an_apply_through_a_flaky_store_converges_and_leaves_nothing_behind(
        moto_server_clean: MotoServer, tmp_path: Path) -> None:
    remote = s3_remote(moto_server_clean)
    with FaultProxy(moto_server_clean.url) as proxy:
        remote.env = {**remote.env, "AWS_ENDPOINT_URL": proxy.url}
        project = project_for(tmp_path / "cfg", remote, LIFECYCLE)
        project.ok("init", *remote.init_args)
        proxy.arm("lose_reply", times=1, method="PUT", path=r"\.tflock$")  # the lock lands, its reply is lost
        proxy.arm("status", times=2, method="PUT", path=r"\.tfstate$", status=503)
        proxy.arm("status", times=2, method="PUT", path=r"\.journal/", status=429, retry_after="0")
        proxy.arm("reset", times=2, method="GET", path=r"\.tfstate$")
        res = project.apply()
        assert "Traceback" not in res.output
        assert {s.fault for s in proxy.faulted()} == {"lose_reply", "status", "reset"}
        assert "No changes." in project.ok("plan").stdout
    state = remote.state()
    assert resources(state) == {"time_sleep.a", "terraform_data.b"}
    stored = remote.keys  # the bucket's object keys (a function, not a dict)
    leftovers = [k for k in stored() if k.endswith(".tflock") or ".journal/" in k]
    assert leftovers == []


def test_an_apply_whose_state_write_gives_up_saves_errored_state_and_the_next_run_recovers(
        moto_server_clean: MotoServer, tmp_path: Path) -> None:
    remote = s3_remote(moto_server_clean)
    with FaultProxy(moto_server_clean.url) as proxy:
        remote.env = {**remote.env, "AWS_ENDPOINT_URL": proxy.url}
        project = project_for(tmp_path / "cfg", remote, LIFECYCLE)
        project.ok("init", *remote.init_args)
        proxy.arm("status", times=1000, method="PUT", path=r"\.tfstate$", status=503)  # an outage
        failed = project.ctl("apply", "-auto-approve")
        assert failed.code == 1, failed
        assert "Traceback" not in failed.output
        assert "errored.tfstate" in failed.stderr  # says where the results are, and how to push them
        saved = project.path("errored.tfstate")
        assert saved.exists()
        assert {r["type"] for r in json.loads(saved.read_text())["resources"]} == {"time_sleep", "terraform_data"}

        proxy.faults.clear()  # the outage ends
        recovered = project.ctl("apply", "-auto-approve")
        assert recovered.code == 0, recovered
        assert "Traceback" not in recovered.output
        assert "No changes." in project.ok("plan").stdout  # nothing created twice: the journal had it all
    assert resources(remote.state()) == {"time_sleep.a", "terraform_data.b"}
    stored = remote.keys  # the bucket's object keys (a function, not a dict)
    assert [k for k in stored() if k.endswith(".tflock") or ".journal/" in k] == []


def test_a_black_holed_store_fails_in_bounded_time_with_the_lock_released(
        moto_server_clean: MotoServer, tmp_path: Path) -> None:
    """Journal writes that never get a reply: each attempt waits CTL_BACKEND_TIMEOUT, then the apply
    stops with one message naming the timeout, releases its lock, and the next run converges."""
    remote = s3_remote(moto_server_clean)
    with FaultProxy(moto_server_clean.url) as proxy:
        remote.env = {**remote.env, "AWS_ENDPOINT_URL": proxy.url, "CTL_BACKEND_TIMEOUT": "1"}
        project = project_for(tmp_path / "cfg", remote, LIFECYCLE)
        project.ok("init", *remote.init_args)
        proxy.arm("delay", times=1000, method="PUT", path=r"\.journal/", delay_s=30)  # a black hole
        started = time.monotonic()
        failed = project.ctl("apply", "-auto-approve", timeout=120)
        took = time.monotonic() - started
        assert failed.code == 1, failed
        assert took < 45, took
        assert "Traceback" not in failed.output
        assert "did not answer within 1 s" in failed.stderr

        proxy.faults.clear()
        recovered = project.ctl("apply", "-auto-approve")
        assert recovered.code == 0, recovered
        assert "No changes." in project.ok("plan").stdout
    assert resources(remote.state()) == {"time_sleep.a", "terraform_data.b"}
    stored = remote.keys  # the bucket's object keys (a function, not a dict)
    assert [k for k in stored() if k.endswith(".tflock") or ".journal/" in k] == []


def test_a_lock_that_cannot_be_released_is_named_with_the_command_to_release_it(
        moto_server_clean: MotoServer, tmp_path: Path) -> None:
    remote = s3_remote(moto_server_clean)
    with FaultProxy(moto_server_clean.url) as proxy:
        remote.env = {**remote.env, "AWS_ENDPOINT_URL": proxy.url, "CTL_BACKEND_TIMEOUT": "1"}
        project = project_for(tmp_path / "cfg", remote, LIFECYCLE)
        project.ok("init", *remote.init_args)
        proxy.arm("delay", times=1000, method="PUT", path=r"\.journal/", delay_s=30)
        proxy.arm("delay", times=1000, method="DELETE", path=r"\.tflock$", delay_s=30)
        failed = project.ctl("apply", "-auto-approve", timeout=120)
        assert failed.code == 1, failed
        assert "Traceback" not in failed.output
        unlock = re.search(r"still held: once the storage answers, release it with `ctl state unlock ([0-9a-f-]{36})`",
                           failed.stderr)
        assert unlock is not None, failed

        proxy.faults.clear()  # the storage answers again
        project.ok("state", "unlock", unlock.group(1))
        project.apply()
        assert "No changes." in project.ok("plan").stdout
    assert resources(remote.state()) == {"time_sleep.a", "terraform_data.b"}
