"""The resources and modules that contain instance addresses, so ``state rm`` and ``--target`` can name them.

Addresses are split into steps by hand (a ``for_each`` key may contain dots and brackets), never by
loading the engine's address parser: completion must stay cheap.
"""

from __future__ import annotations

from cli.completion.addresses import address_order


def with_containers(instances: list[str]) -> list[str]:
    """The instances with the resources (of several instances) and modules that contain them."""
    out: dict[str, None] = dict.fromkeys(instances)
    for address in instances:
        for container in _containers(address):
            out.setdefault(container, None)
    return sorted(out, key=address_order)


def _containers(address: str) -> list[str]:
    """``module.a["x"].t.n[0]`` → ``module.a["x"].t.n``, ``module.a["x"]``, ``module.a``."""
    parts = _split_steps(address)
    out = []
    if parts and parts[-1].startswith("["):
        out.append("".join(parts[:-1]))
    out.extend("".join(parts[:i]) for i in range(len(parts) - 1, 0, -1) if _ends_a_module(parts, i))
    return out


def _split_steps(address: str) -> list[str]:
    """Split an address into ``name`` / ``.name`` / ``[key]`` steps (keys may contain dots)."""
    steps: list[str] = []
    i = 0
    while i < len(address):
        if address[i] == "[":
            end = i + 1
            if end < len(address) and address[end] == '"':
                end += 1
                while end < len(address) and address[end] != '"':
                    end += 2 if address[end] == "\\" else 1
            end = address.find("]", end)
            end = len(address) if end < 0 else end + 1
        else:
            end = i + 1
            while end < len(address) and address[end] not in ".[":
                end += 1
        steps.append(address[i:end])
        i = end
    return steps


def _ends_a_module(parts: list[str], i: int) -> bool:
    """Whether ``parts[:i]`` is a module path: ``module`` ``.name`` optionally ``[key]``, repeated."""
    j = 0
    while j < i:
        if parts[j].lstrip(".") != "module" or j + 1 >= i or not parts[j + 1].startswith("."):
            return False
        j += 2
        if j < i and parts[j].startswith("["):
            j += 1
    return j == i
