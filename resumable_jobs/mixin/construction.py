"""How ``durable`` reaches a resumable operator, and when its configuration is checked.

Why this exists: the spec's example declares ``class MyOperator(BaseOperator, ResumableJobMixin)``
- BaseOperator *first*. In that order a mixin ``__init__`` never sees the operator's keyword
arguments: ``BaseOperator.__init__`` receives ``durable=`` first and rejects it as unknown, and
``default_args={"durable": False}`` is only applied to parameters an ``__init__`` declares. So the
mixin cannot rely on its own ``__init__``.

How it works: for every operator class that includes the mixin, ``__init_subclass__`` wraps the
class's ``__init__`` in a thin layer that (a) declares ``durable`` in its signature, so Airflow's
``default_args`` machinery fills it, (b) takes ``durable`` out of the keyword arguments before the
real ``__init__`` runs, and (c) once the outermost ``__init__`` has finished - when the operator
has set ``deferrable`` and ``wait_for_termination`` - validates the configuration. An ``__init__``
that declares ``durable`` itself receives it unchanged (the mixin's ``__init__`` picks it up when
it is passed along).

What it does not do: it does not touch classes that are only mixin layers (no operator yet), and
it never changes the arguments of an ``__init__`` other than removing ``durable`` where that
``__init__`` could not accept it.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

_WRAPPED_MARK = "_resumable_construction_layer"
_CONSTRUCTING = "_resumable_constructing"
UNSET: Any = object()


def _declares_durable(func: Any) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return "durable" in params


def _with_durable_parameter(signature: inspect.Signature) -> inspect.Signature:
    params = list(signature.parameters.values())
    durable = inspect.Parameter("durable", inspect.Parameter.KEYWORD_ONLY, default=UNSET)
    position = next((i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_KEYWORD), len(params))
    params.insert(position, durable)
    return signature.replace(parameters=params)


def install(cls: type) -> None:
    """Wrap ``cls.__init__`` (see the module docstring). Idempotent per class."""
    if "__init__" not in vars(cls) and getattr(cls.__init__, _WRAPPED_MARK, False):
        return  # inherits an already wrapped __init__: nothing new to wrap
    original = cls.__init__
    passes_durable_through = _declares_durable(original)

    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        outermost = not self.__dict__.get(_CONSTRUCTING, False)
        if outermost:
            object.__setattr__(self, _CONSTRUCTING, True)
        try:
            if not passes_durable_through:
                durable = kwargs.pop("durable", UNSET)
                if durable is not UNSET:
                    self._accept_durable(durable)
            original(self, *args, **kwargs)
        finally:
            if outermost:
                self.__dict__.pop(_CONSTRUCTING, None)
        if outermost:
            self._validate_resumable_configuration()

    if not passes_durable_through:
        __init__.__signature__ = _with_durable_parameter(inspect.signature(original))  # type: ignore[attr-defined]
    setattr(__init__, _WRAPPED_MARK, True)
    cls.__init__ = __init__  # type: ignore[method-assign]
