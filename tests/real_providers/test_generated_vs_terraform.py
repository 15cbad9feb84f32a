"""Generated configurations over the six small real providers, planned by ctl and by Terraform 1.0.3.

A fixed sample of seeds of ``tests/real_providers/generated.py`` (``make generated N=300`` runs
hundreds). For each configuration both tools must agree on whether it plans; when it does, on the
action of every address and, attribute by attribute, on ``after``, ``after_unknown``,
``after_sensitive``, ``planned_values`` and the data sources read during plan.

What legitimately differs is normalised before comparing, and nothing else:

* ``after_unknown``/``after_sensitive``: Terraform 1.0.3 writes ``{}`` or ``[false, …]`` for every
  known collection, ctl only where something is flagged; both are reduced to where they say ``true``.
* Secrets: ctl masks them as ``(sensitive value)`` in ``show --json``; Terraform prints them. Terraform
  1.0.3 marks every attribute the schema calls sensitive (null or not) in ``after_sensitive`` and none
  in ``sensitive_values``; ctl marks the values that hold a secret in both. Both sides are marked by the
  schema as well, and masked by their marks; a secret ctl failed to mask still shows as a difference
  in the values.
* Sets: compared in one order, each element with its flags; an element not known yet is left out of
  ``after`` by Terraform and written as null by ctl, so the known elements and the number of unknown
  ones are compared.
* ``values`` left out of a planned resource (Terraform, when nothing about it is known) is ``{}``.
* ``data "null_data_source"``'s ``random`` is drawn at plan: compared by type.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.real_providers.generated import PREAMBLE, SOURCES, Case, Outcome, Planner, generate

# Seeds picked for what they hold: configurations that plan, with dynamic blocks over known and
# unknown collections, count and for_each over known maps and sets; and ones with a deliberate
# mistake (a value the provider refuses, a for_each not known until apply, a required argument
# null, a value that does not convert, an argument the schema does not have). Seeds that only show
# the disagreements kept below as expected failures are not in it.
SAMPLE = (5, 8, 27, 6, 7, 19, 42, 49)


@pytest.fixture(scope="module")
def planner(tmp_path_factory: pytest.TempPathFactory, real_providers: Path) -> Iterator[Planner]:
    yield Planner(tmp_path_factory.mktemp("generated"), real_providers)


def _explain(outcome: Outcome, case: Case) -> str:
    return (f"seed {outcome.seed} (reproduce: .venv/bin/python -m tests.real_providers.generated 1 "
            f"{outcome.seed}); invalid on purpose: {outcome.invalid}\n" + "\n".join(outcome.differences)
            + f"\n--- main.tf ---\n{case.config}")


@pytest.mark.parametrize("seed", SAMPLE)
def test_generated_configuration_plans_as_terraform_plans_it(planner: Planner, seed: int) -> None:
    case = generate(seed, planner.schemas)
    outcome = planner.run(case)
    assert outcome.agree, _explain(outcome, case)


def test_the_sample_covers_plans_and_refusals(planner: Planner) -> None:
    cases = [generate(seed, planner.schemas) for seed in SAMPLE]
    assert any(case.invalid for case in cases) and any(case.invalid is None for case in cases)
    for case in cases:
        # Every resource type and data source of the six providers is in every configuration.
        for mode, key in (("resource", "resource_schemas"), ("data", "data_source_schemas")):
            for schemas in planner.schemas["provider_schemas"].values():
                for type_name in schemas.get(key) or {}:
                    assert f'{mode} "{type_name}" "g"' in case.config, (case.seed, type_name)
    # A seed is its configuration: a disagreement reported with its seed can be replayed.
    assert generate(SAMPLE[0], planner.schemas).config == cases[0].config


def test_a_dynamic_block_over_a_collection_not_known_yet_plans(planner: Planner) -> None:
    """Terraform decodes the nested blocks of a ``dynamic`` block over an unknown ``for_each`` as an
    unknown set: the provider's required arguments inside them are checked at apply, not at plan."""
    config = PREAMBLE + SOURCES + '''
resource "archive_file" "g" {
  type        = "zip"
  output_path = "${path.module}/out/g.zip"
  dynamic "source" {
    for_each = random_shuffle.src.result
    content {
      content  = source.value
      filename = "${source.value}.txt"
    }
  }
}
'''
    outcome = planner.run(Case(seed=-1, config=config))
    assert outcome.terraform_code == 0, outcome.differences
    assert outcome.agree, "\n".join(outcome.differences)
    shown = json.loads(planner.ctl.ok("show", "--json", "ctlplan").stdout)
    change = next(c for c in shown["resource_changes"] if c["address"] == "archive_file.g")
    assert change["change"]["after_unknown"]["source"] is True


def _plan_both(planner: Planner, blocks: str) -> Outcome:
    return planner.run(Case(seed=-1, config=PREAMBLE + SOURCES + blocks))


def test_a_block_with_no_instances_is_still_checked_against_its_schema(planner: Planner) -> None:
    outcome = _plan_both(planner, '''
resource "random_string" "none" {
  count  = 0
  length = "abc"
}
''')
    assert outcome.terraform_code == 1
    assert outcome.agree, "\n".join(outcome.differences)


def test_a_data_source_read_at_apply_is_not_refused_at_plan(planner: Planner) -> None:
    outcome = _plan_both(planner, '''
data "archive_file" "later" {
  type                    = "zip"
  excludes                = ["x"]
  source_content          = data.external.src.result.cidr
  source_content_filename = "a.txt"
  output_path             = "${path.module}/out/${random_id.src.hex}.zip"
}
''')
    assert outcome.terraform_code == 0
    assert outcome.agree, "\n".join(outcome.differences)


def test_a_set_with_an_element_not_known_yet_is_an_unknown_list(planner: Planner) -> None:
    """``toset([x, "b"])`` with ``x`` unknown is a set of "b" and one unknown element; given to a
    list argument it is wholly unknown, as Terraform plans it: the set's order is not known yet."""
    outcome = _plan_both(planner, '''
resource "random_shuffle" "partly" {
  input = toset([random_shuffle.src.result[0], "b"])
}
''')
    assert outcome.terraform_code == 0, outcome.differences
    assert outcome.agree, "\n".join(outcome.differences)
    shown = json.loads(planner.ctl.ok("show", "--json", "ctlplan").stdout)
    change = next(c for c in shown["resource_changes"] if c["address"] == "random_shuffle.partly")
    assert change["change"]["after_unknown"]["input"] is True
