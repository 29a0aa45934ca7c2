"""How ``durable`` reaches a resumable operator, and when its configuration is checked.

Why this exists: the spec's example declares ``class MyOperator(BaseOperator, ResumableJobMixin)``
- BaseOperator *first*. In that order a mixin ``__init__`` never sees the operator's keyword
arguments: ``BaseOperator.__init__`` receives ``durable=`` first and rejects it as unknown, and
``default_args={"durable": False}`` is only applied to parameters an ``__init__`` declares. So the
mixin cannot rely on its own ``__init__``.

The same holds for ``on_kill``: in that order ``BaseOperator.on_kill`` (which does nothing)
comes before the mixin's in the MRO, and the job-lifecycle rule would never run.

How it works: for every operator class that includes the mixin, ``__init_subclass__`` wraps the
class's ``__init__`` in a thin layer that (a) declares the mixin's parameters
(:data:`MIXIN_PARAMETERS`: ``durable``, ``cancel_on_worker_shutdown``) in its signature, so
Airflow's ``default_args`` machinery fills them, (b) takes them out of the keyword arguments
before the real ``__init__`` runs, and (c) once the outermost ``__init__`` has finished - when the
operator has set ``deferrable`` and ``wait_for_termination`` - validates the configuration and
adds the mixin's failure callback. An ``__init__`` that declares a parameter itself receives it
unchanged (the mixin's ``__init__`` picks it up when it is passed along). A class whose
``on_kill`` would resolve to Airflow's no-op gets the mixin's instead.

What it does not do: it does not touch classes that are only mixin layers (no operator yet), and
it never changes the arguments of an ``__init__`` other than removing the mixin's parameters
where that ``__init__`` could not accept them. An ``on_kill`` written by the operator's author
is left alone (it then owns the job's lifecycle).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

_WRAPPED_MARK = "_resumable_construction_layer"
_CONSTRUCTING = "_resumable_constructing"
UNSET: Any = object()

#: Parameters every resumable operator accepts, also through ``default_args``.
MIXIN_PARAMETERS = ("durable", "cancel_on_worker_shutdown")


def accept(operator: Any, name: str, value: Any) -> None:
    """Hand one mixin parameter to the operator's ``_accept_<name>`` (which validates it)."""
    getattr(operator, f"_accept_{name}")(value)


def _declared(func: Any) -> set[str]:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return set()
    return set(MIXIN_PARAMETERS) & set(params)


def _with_parameters(signature: inspect.Signature, names: list[str]) -> inspect.Signature:
    params = list(signature.parameters.values())
    position = next((i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_KEYWORD), len(params))
    for name in reversed(names):
        params.insert(position, inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=UNSET))
    return signature.replace(parameters=params)


def _install_on_kill(cls: type) -> None:
    """Give ``cls`` the mixin's ``on_kill`` where the MRO would pick Airflow's no-op first."""
    from resumable_jobs.mixin.contract import ResumableJobContract

    owner = next((klass for klass in cls.__mro__ if "on_kill" in vars(klass)), None)
    if owner is None or issubclass(owner, ResumableJobContract):
        return
    if owner.__name__ == "BaseOperator" and owner.__module__.startswith("airflow."):
        cls.on_kill = ResumableJobContract.on_kill  # type: ignore[attr-defined]


def install(cls: type) -> None:
    """Wrap ``cls.__init__`` and fix ``on_kill`` (see the module docstring). Idempotent per class."""
    _install_on_kill(cls)
    if "__init__" not in vars(cls) and getattr(cls.__init__, _WRAPPED_MARK, False):
        return  # inherits an already wrapped __init__: nothing new to wrap
    original = cls.__init__
    passed_through = _declared(original)
    taken = [name for name in MIXIN_PARAMETERS if name not in passed_through]

    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        outermost = not self.__dict__.get(_CONSTRUCTING, False)
        if outermost:
            object.__setattr__(self, _CONSTRUCTING, True)
        try:
            for name in taken:
                value = kwargs.pop(name, UNSET)
                if value is not UNSET:
                    accept(self, name, value)
            original(self, *args, **kwargs)
        finally:
            if outermost:
                self.__dict__.pop(_CONSTRUCTING, None)
        if outermost:
            self._finish_resumable_construction()

    if taken:
        __init__.__signature__ = _with_parameters(inspect.signature(original), taken)  # type: ignore[attr-defined]
    setattr(__init__, _WRAPPED_MARK, True)
    cls.__init__ = __init__  # type: ignore[method-assign]
