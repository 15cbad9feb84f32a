"""``ctl validate`` on every module directory of public module repositories, offline.

A module directory is any directory holding ``.tf`` files (the root module, ``modules/*``,
``examples/*``, ``wrappers/*``). Each is validated where it is, with the parse cache off so the
checkouts gain no files, and every error ``ctl validate --json`` reports is put in one class:

* ``unavailable``: what needs the network or a provider ctl does not have here: a resource type or
  data source no adapter provides (no plugin installed), a module source ctl cannot fetch offline;
* ``adapter``: an argument or block a native adapter does not take (``Unsupported argument`` on a
  resource, ``Unsupported block type`` in a ``provider`` block): the real provider's schema has it;
* ``language``: everything else: what the configuration language itself refuses.

A directory "has no language error" when it has no error of the last class. Terraform 1.0.3
(``terraform validate``) runs on a directory only where it can run offline: its
``required_version`` admits 1.0.3 and every provider it requires is in ``../shared/providers`` at an
admitted version, read from the files (a heuristic: a local module may need more, which
``terraform init`` then finds); the script says how many directories that leaves, and compares ctl's
verdict (no language error and no adapter gap) with Terraform's where its init succeeds.

Checkouts are directories of repositories (``git archive`` of a commit, or a clone), given on the
command line. Run: ``python bench/public_modules.py DIR [DIR ...] [--json]`` (exit status 0 always:
this is a measurement, not a test). Figures are in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MIRROR = ROOT.parent / "shared" / "providers"
TIMEOUT = 300.0
_UNAVAILABLE = re.compile(r"^(Unsupported (resource type|data source) \S+: no adapter provides it"
                          r"|Module source .* is not supported yet|Module not installed)")
_ADAPTER = re.compile(r'^(Unsupported argument|Unsupported block type "[^"]+")')


def module_dirs(checkout: Path) -> list[Path]:
    """Every directory of ``checkout`` holding a ``.tf`` file, outside ``.terraform``/``.ctl``."""
    found = {p.parent for p in checkout.rglob("*.tf")
             if not {".terraform", ".ctl", ".git"} & set(p.relative_to(checkout).parts)}
    return sorted(found)


def classify(diag: dict[str, Any]) -> str:
    summary = diag.get("summary", "")
    if _UNAVAILABLE.match(summary):
        return "unavailable"
    detail = diag.get("detail", "")
    if _ADAPTER.match(summary) and ("This resource type has no argument" in detail or "provider" in detail):
        return "adapter"
    return "language"


def ctl_validate(directory: Path, ctl: list[str]) -> dict[str, Any]:
    """``ctl validate --json`` in ``directory``: its document, or one language error saying why not."""
    env = dict(os.environ, CTL_PARSE_CACHE="0", NO_COLOR="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    try:
        run = subprocess.run([*ctl, "validate", "--json"], cwd=directory, env=env, capture_output=True,
                             text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"valid": False, "diagnostics": [{"severity": "error", "summary": "timed out"}]}
    try:
        doc: dict[str, Any] = json.loads(run.stdout)
    except json.JSONDecodeError:
        text = (run.stdout + run.stderr).strip().splitlines()
        return {"valid": False, "diagnostics": [{"severity": "error", "summary": "no JSON: " + (text[-1] if text else "")}]}
    return doc


def terraform_can_run(directory: Path) -> bool:
    """Whether Terraform 1.0.3 can validate ``directory`` offline (see the module docstring), read
    from the usual layout of ``versions.tf`` and module calls (a heuristic, not a parser)."""
    text = "\n".join(p.read_text(errors="replace") for p in directory.glob("*.tf"))
    if any(not _admits(c, (1, 0, 3)) for c in re.findall(r'required_version\s*=\s*"([^"]+)"', text)):
        return False
    for source in re.findall(r'module\s+"[^"]+"\s*\{\s*source\s*=\s*"([^"]+)"', text):
        if not source.startswith(("./", "../")):
            return False  # a registry or remote module: not fetched offline
    for entry in re.findall(r'\w+\s*=\s*\{([^{}]*source\s*=[^{}]*)\}', text):
        source = re.search(r'source\s*=\s*"([^"]+)"', entry)
        version = re.search(r'version\s*=\s*"([^"]+)"', entry)
        name = source.group(1).rsplit("/", 1)[-1] if source else ""
        zips = list((MIRROR / "registry.terraform.io" / "hashicorp" / name).glob("*.zip")) if name else []
        versions = [v for v in (_version(z.name) for z in zips) if v is not None]
        if not versions or (version and not any(_admits(version.group(1), v) for v in versions)):
            return False
    return True


def _version(zip_name: str) -> tuple[int, ...] | None:
    found = re.search(r"_(\d+)\.(\d+)\.(\d+)_", zip_name)
    return tuple(int(x) for x in found.groups()) if found else None


def _admits(constraints: str, version: tuple[int, ...]) -> bool:
    for part in constraints.split(","):
        found = re.match(r"\s*(>=|<=|>|<|=|!=|~>)?\s*v?(\d+(?:\.\d+)*)\s*$", part)
        if not found:
            return False
        op, wanted = found.group(1) or "=", tuple(int(x) for x in found.group(2).split("."))
        padded = wanted + (0,) * (3 - len(wanted))
        if op == "~>":
            upper = (*wanted[:-2], wanted[-2] + 1) if len(wanted) > 1 else (wanted[0] + 1,)
            ok = padded <= version and version[: len(upper)] < upper
        else:
            ok = {">=": version >= padded, "<=": version <= padded, ">": version > padded,
                  "<": version < padded, "=": version == padded, "!=": version != padded}[op]
        if not ok:
            return False
    return True


def terraform_validate(directory: Path) -> bool | None:
    """``terraform validate`` of a copy of ``directory`` (and its parents' files, for ``../``
    sources): True or False, None when init itself fails."""
    terraform = Path(sys.executable).parent / "terraform"
    with tempfile.TemporaryDirectory(prefix="ctl-public-") as scratch:
        env = dict(os.environ, HOME=scratch, TF_DATA_DIR=str(Path(scratch) / ".terraform"), CHECKPOINT_DISABLE="1")
        init = subprocess.run([str(terraform), "init", "-backend=false", "-input=false", "-no-color",
                               f"-plugin-dir={MIRROR}"], cwd=directory, env=env, capture_output=True,
                              text=True, timeout=TIMEOUT)
        if init.returncode != 0:
            return None
        run = subprocess.run([str(terraform), "validate", "-json", "-no-color"], cwd=directory, env=env,
                             capture_output=True, text=True, timeout=TIMEOUT)
        shutil.rmtree(directory / ".terraform", ignore_errors=True)
        (directory / ".terraform.lock.hcl").unlink(missing_ok=True)
        return bool(json.loads(run.stdout)["valid"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true", help="one JSON line per directory")
    parser.add_argument("--ctl", default=str(Path(sys.executable).parent / "ctl"))
    args = parser.parse_args()
    totals: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    by_repo: dict[str, Counter[str]] = {}
    compared: list[tuple[str, bool, bool | None]] = []
    for checkout in args.checkouts:
        counts = by_repo.setdefault(checkout.name, Counter())
        for directory in module_dirs(checkout):
            doc = ctl_validate(directory, [args.ctl])
            errors = [d for d in doc.get("diagnostics", []) if d.get("severity") == "error"]
            kinds = Counter(classify(d) for d in errors)
            language = [d for d in errors if classify(d) == "language"]
            counts["directories"] += 1
            counts["no language error"] += not language
            counts["no language or adapter error"] += not language and not kinds["adapter"]
            for d in errors:
                if classify(d) != "unavailable":
                    reasons[f'{classify(d)}: {re.sub(r"[(][^)]*[)]", "", d.get("summary", ""))[:90]}'] += 1
            if terraform_can_run(directory):
                compared.append((str(directory), not language and not kinds["adapter"], terraform_validate(directory)))
            if args.json:
                print(json.dumps({"directory": str(directory), "errors": dict(kinds),
                                  "language": [(d.get("summary"), (d.get("range") or {}).get("filename"),
                                                ((d.get("range") or {}).get("start") or {}).get("line")) for d in language]}))
        totals.update(counts)
    print(f"{'repository':40} {'dirs':>5} {'no language error':>18} {'and no adapter gap':>19}")
    for name, counts in by_repo.items():
        print(f"{name:40} {counts['directories']:5} {counts['no language error']:18} "
              f"{counts['no language or adapter error']:19}")
    print(f"{'total':40} {totals['directories']:5} {totals['no language error']:18} "
          f"{totals['no language or adapter error']:19}")
    print("\nerrors other than unavailable types and modules, by summary:")
    for reason, n in reasons.most_common():
        print(f"  {n:4}  {reason}")
    ran = [(d, ours, theirs) for d, ours, theirs in compared if theirs is not None]
    print(f"\nTerraform 1.0.3: {len(compared)} of {totals['directories']} directories look offline-ready, "
          f"{len(ran)} pass its init (every module and provider, transitively, offline)")
    for directory, ours, theirs in ran:
        print(f"  {directory}: ctl {'accepts' if ours else 'refuses'}, terraform {'accepts' if theirs else 'refuses'}"
              f"{'' if ours == theirs else '  <- differs'}")


if __name__ == "__main__":
    main()
