"""Fuzzing: damaged configurations, state, journal and lock files, generated expressions, and what
comes from the network and from providers (registry and mirror documents, release zips, values and
schemas a provider answers with).

Each test drives one target of ``tests/fuzz/targets.py`` with a few hundred inputs, derandomized so
a CI run is repeatable (``CTL_FUZZ_PROFILE=ci``, the default). ``make fuzz`` runs the same targets
with random inputs for a time budget (``tests/fuzz/run.py``). Inputs that once broke ctl are kept in
``tests/fuzz/regressions/`` and replayed first.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz import targets
from tests.fuzz.built_seeds import provider_zips, responses
from tests.fuzz.expressions import expressions
from tests.fuzz.mutations import damaged, damaged_bytes

settings.register_profile(
    "ci", max_examples=150, derandomize=True, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("CTL_FUZZ_PROFILE", "ci"))

REGRESSIONS = Path(__file__).resolve().parent / "regressions"
CONFIG_FILES = ("main.tf", "main.tf.json", "main.tf.yaml")


@given(damaged(("main.tf",)))
def test_hcl_files(data: bytes) -> None:
    targets.hcl_file(data)


@given(st.sampled_from(CONFIG_FILES).flatmap(lambda name: st.tuples(st.just(name), damaged((name,)))))
@settings(max_examples=60)
def test_configuration_directories(named: tuple[str, bytes]) -> None:
    targets.configuration(*named)


@given(expressions)
def test_expressions(text: str) -> None:
    targets.expression(text)


@given(damaged(("state.tfstate",)))
def test_state_files(data: bytes) -> None:
    targets.state_file(data)


@given(damaged(("journal.jsonl",)))
def test_journals(data: bytes) -> None:
    targets.journal(data)


@given(damaged(("lock.json",)))
@settings(max_examples=60)
def test_lock_files(data: bytes) -> None:
    targets.lock_file(data)


@given(st.sampled_from(targets.REGISTRY_DOCUMENTS).flatmap(lambda name: st.tuples(st.just(name), damaged((name,)))))
@settings(max_examples=100)
def test_registry_documents(named: tuple[str, bytes]) -> None:
    targets.registry_document(*named)


@given(st.builds(provider_zips).flatmap(damaged_bytes))
@settings(max_examples=80)
def test_provider_zips(data: bytes) -> None:
    targets.provider_zip(data)


@given(st.sampled_from(targets.RESPONSE_KINDS).flatmap(
    lambda name: st.tuples(st.just(name), damaged_bytes(responses()[name]))))
def test_provider_responses(named: tuple[str, bytes]) -> None:
    targets.provider_response(*named)


@pytest.mark.parametrize("path", sorted(p for p in REGRESSIONS.iterdir() if p.is_file()) if REGRESSIONS.is_dir() else [],
                         ids=lambda p: p.name)
def test_regressions(path: Path) -> None:
    """An input that once escaped as a crash or a hang: ``TARGET--anything`` names its target."""
    target = path.name.split("--", 1)[0]
    data = path.read_bytes()
    if target == "expression":
        targets.expression(data.decode())
    elif target in ("configuration", "registry_document", "provider_response"):
        getattr(targets, target)(path.name.split("--", 2)[1], data)
    else:
        getattr(targets, target)(data)
