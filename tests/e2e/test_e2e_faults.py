"""``ctl apply`` with the s3 backend behind a fault-injecting proxy: throttled state and journal
writes, reset connections and a lost reply to the lock request. The apply converges, the state
holds every resource exactly once, and no lock or journal is left behind.
"""

from __future__ import annotations

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
