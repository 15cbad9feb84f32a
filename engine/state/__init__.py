"""State: the model in Terraform's version 4 shape, its codec, the apply journal and the
manager that loads and saves it through a backend's ``StateStore``."""

from engine.state.address import AddressError, InstanceAddress
from engine.state.model import InstanceState, OutputValue, ResourceState, State, new_state

__all__ = [
    "AddressError",
    "InstanceAddress",
    "InstanceState",
    "OutputValue",
    "ResourceState",
    "State",
    "new_state",
]
