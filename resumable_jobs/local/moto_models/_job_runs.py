"""Shared by the EMR stand-ins: a job run's state driven by moto's state manager, and token lookup.

What it is for: moto gives an EMR Serverless job run the state SUCCESS and an EMR on EKS job run
the state RUNNING for ever, the moment StartJobRun creates it. Crash tests need more: a run that
stays RUNNING until the test releases it (also from another process, the moto_server the Airflow
deployments use), a run that ends FAILED, and a run the test lets progress one state at a time.

How it works: :func:`install_state_property` replaces the model class's plain ``state`` attribute
by a property. A run walks its service's documented states (``transitions``) under moto's own
state manager (:class:`moto.moto_api._internal.managed_state_model.ManagedState`), with the model
name the module registers; moto's progressions (``immediate``, ``manual``, ``time``) work as for
every moto model that uses the state manager, and two progressions are added:

* ``{"progression": "hold"}`` - the run moves to its running state and stays there;
* ``{"progression": "fail"}`` - a run that has not ended ends with the failed state.

A state that moto's own code assigns (CancelJobRun's CANCELLED) is final and wins over the
progression. Each progression is set through moto's documented state-manager API - in process
``moto.moto_api.state_manager.set_transition(model, {...})``, across processes ``POST
/moto-api/state-manager/set-transition`` with ``{"model_name": ..., "transition": {...}}`` - so a
test releases a held run with ``{"progression": "immediate"}`` from wherever it runs.

What it does not do: per-run progressions (the transition applies to every run of the model), or
any timing AWS does not document.
"""

from __future__ import annotations

from typing import Any

HOLD = "hold"
FAIL = "fail"


def install_state_property(
    model_class: type,
    *,
    model_name: str,
    transitions: list[tuple[str, str]],
    running: str,
    failed: str,
    on_failed: Any = None,
) -> None:
    """Make ``model_class.state`` follow the state manager (see the module docstring). Idempotent."""
    if getattr(model_class, "_rj_state_property", False):
        return
    from moto.moto_api import state_manager
    from moto.moto_api._internal.managed_state_model import ManagedState

    original_init = model_class.__init__
    ended = {after for _, after in transitions} - {before for before, _ in transitions}

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self.__dict__.pop("_rj_final", None)  # moto's initial assignment is replaced by the walk
        self._rj_progress = ManagedState(model_name, transitions)

    def _get(self: Any) -> str | None:
        final = self.__dict__.get("_rj_final")
        progress = self.__dict__.get("_rj_progress")
        if final is not None or progress is None:
            return final
        progression = state_manager.get_transition(model_name).get("progression")
        if progression == HOLD:
            if progress._status not in ended:
                progress._status = running
            return progress._status
        if progression == FAIL:
            if progress._status not in ended:
                self._rj_final = failed
                if on_failed is not None:
                    on_failed(self)
                return failed
            return progress._status
        progress.advance()
        return progress.status

    def _set(self: Any, value: str) -> None:
        self._rj_final = value

    model_class.__init__ = __init__
    model_class.state = property(_get, _set)
    model_class._rj_state_property = True


def find_by_token(runs: Any, client_token: str | None) -> Any:
    """The run created with ``client_token`` among ``runs``, or None (no token: None)."""
    if not client_token:
        return None
    for run in runs:
        if getattr(run, "client_token", None) == client_token:
            return run
    return None
