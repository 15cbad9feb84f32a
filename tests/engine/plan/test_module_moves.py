"""``moved`` blocks for module calls and for resources crossing module boundaries: the objects
keep their state under the new address, nothing is destroyed, and bad statements are refused with
Terraform's messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.pipeline import Project, actions, change, new_project
from vocab.errors import DiagnosticsError

CHILD = 'resource "demo_thing" "x" { name = "x" }\n'


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return new_project(tmp_path / "cfg")


def _start(project: Project, main_tf: str) -> None:
    project.write(main_tf, **{"m/main.tf": CHILD})
    project.apply()


def _addresses(project: Project) -> list[str]:
    return sorted(str(a) for a, _ in project.state().instances())


@pytest.mark.parametrize(("before", "after", "old", "new"), [
    ('module "a" { source = "./m" }\n',
     'module "b" { source = "./m" }\nmoved {\n  from = module.a\n  to   = module.b\n}\n',
     "module.a.demo_thing.x", "module.b.demo_thing.x"),
    ('module "a" { source = "./m" }\n',
     'module "a" {\n  source = "./m"\n  count  = 1\n}\nmoved {\n  from = module.a\n  to   = module.a[0]\n}\n',
     "module.a.demo_thing.x", "module.a[0].demo_thing.x"),
    ('module "a" {\n  source = "./m"\n  count  = 1\n}\n',
     'module "a" {\n  source   = "./m"\n  for_each = toset(["x"])\n}\n'
     'moved {\n  from = module.a[0]\n  to   = module.a["x"]\n}\n',
     "module.a[0].demo_thing.x", 'module.a["x"].demo_thing.x'),
    ('module "a" { source = "./m" }\n',
     'module "c" { source = "./m" }\nmoved {\n  from = module.a\n  to   = module.b\n}\n'
     'moved {\n  from = module.b\n  to   = module.c\n}\n',
     "module.a.demo_thing.x", "module.c.demo_thing.x"),
    ('module "a" { source = "./m" }\n',
     'resource "demo_thing" "y" { name = "x" }\nmoved {\n  from = module.a.demo_thing.x\n  to   = demo_thing.y\n}\n',
     "module.a.demo_thing.x", "demo_thing.y"),
])
def test_a_moved_module_or_resource_keeps_its_object(project: Project, before: str, after: str,
                                                     old: str, new: str) -> None:
    _start(project, before)
    project.write(after, **{"m/main.tf": CHILD})
    plan = project.plan().plan
    assert actions(plan) == {new: "no-op"}
    assert change(plan, new).previous_address == old
    project.apply()
    assert _addresses(project) == [new]


def test_a_resource_moves_into_a_module(project: Project) -> None:
    project.write('resource "demo_thing" "t" { name = "x" }\n', **{"m/main.tf": CHILD})
    project.apply()
    project.write('module "m" { source = "./m" }\nmoved {\n  from = demo_thing.t\n  to   = module.m.demo_thing.x\n}\n',
                  **{"m/main.tf": CHILD})
    plan = project.plan().plan
    assert actions(plan) == {"module.m.demo_thing.x": "no-op"}


def _refused(project: Project, main_tf: str) -> str:
    project.write(main_tf, **{"m/main.tf": CHILD})
    with pytest.raises(DiagnosticsError) as err:
        project.plan()
    return "\n".join(f"{d.summary}: {d.detail}" for d in err.value.diagnostics())


def test_a_cycle_of_moves_is_refused(project: Project) -> None:
    _start(project, 'module "a" { source = "./m" }\n')
    text = _refused(project, 'module "c" { source = "./m" }\nmoved {\n  from = module.a\n  to   = module.b\n}\n'
                             'moved {\n  from = module.b\n  to   = module.a\n}\n')
    assert "Cyclic dependency in move statements" in text
    assert "module.a[*] → module.b[*]" in text and "module.b[*] → module.a[*]" in text
    assert _addresses(project) == ["module.a.demo_thing.x"]


def test_a_module_moved_into_itself_is_refused(project: Project) -> None:
    _start(project, 'module "a" { source = "./m" }\n')
    text = _refused(project, 'module "a" { source = "./m" }\nmoved {\n  from = module.a\n  to   = module.a.module.b\n}\n')
    assert "Moved object still exists" in text and "that module call is still declared" in text
    text = _refused(project, 'module "z" { source = "./m" }\nmoved {\n  from = module.a\n  to   = module.a.module.b\n}\n')
    assert 'Invalid "moved" addresses' in text


def test_a_module_moved_to_a_resource_is_refused(project: Project) -> None:
    _start(project, 'module "a" { source = "./m" }\n')
    text = _refused(project, 'module "a" { source = "./m" }\nresource "demo_thing" "y" { name = "y" }\n'
                             'moved {\n  from = module.zz\n  to   = demo_thing.y\n}\n')
    assert "both refer to resources or both refer to modules" in text


def test_a_move_onto_an_existing_object_is_blocked_with_a_warning(project: Project) -> None:
    _start(project, 'module "a" { source = "./m" }\nmodule "b" { source = "./m" }\n')
    project.write('module "b" { source = "./m" }\nmoved {\n  from = module.a\n  to   = module.b\n}\n',
                  **{"m/main.tf": CHILD})
    result = project.plan()
    assert actions(result.plan) == {"module.a.demo_thing.x": "delete", "module.b.demo_thing.x": "no-op"}
    warned = [d for d in result.diags.items if d.summary == "Unresolved resource instance address changes"]
    assert warned and "module.a could not move to module.b" in warned[0].detail


def test_a_moved_block_in_a_child_module_moves_within_each_of_its_instances(project: Project) -> None:
    call = 'module "a" {\n  source = "./m"\n  count  = 2\n}\n'
    project.write(call, **{"m/main.tf": 'resource "demo_thing" "old" { name = "x" }\n'
                                        'module "inner" { source = "../n" }\n',
                           "n/main.tf": CHILD})
    project.apply()
    project.write(call, **{"m/main.tf": 'resource "demo_thing" "x" { name = "x" }\n'
                                        'module "inner2" { source = "../n" }\n'
                                        'moved {\n  from = demo_thing.old\n  to   = demo_thing.x\n}\n'
                                        'moved {\n  from = module.inner\n  to   = module.inner2\n}\n',
                           "n/main.tf": CHILD})
    plan = project.plan().plan
    expected = {f"module.a[{i}].{rest}": "no-op" for i in (0, 1) for rest in ("demo_thing.x", "module.inner2.demo_thing.x")}
    assert actions(plan) == expected
    assert change(plan, "module.a[1].module.inner2.demo_thing.x").previous_address == \
        "module.a[1].module.inner.demo_thing.x"
    project.apply()
    assert _addresses(project) == sorted(expected)


def test_one_module_moved_to_two_places_is_refused(project: Project) -> None:
    _start(project, 'module "a" { source = "./m" }\n')
    text = _refused(project, 'module "b" { source = "./m" }\nmodule "c" { source = "./m" }\n'
                             'moved {\n  from = module.a\n  to   = module.b\n}\n'
                             'moved {\n  from = module.a\n  to   = module.c\n}\n')
    assert "Ambiguous move statements" in text and "Each module call can move to only one destination call" in text
