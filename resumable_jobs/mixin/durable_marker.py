"""Upstream's marker for operators that recover on retry, on every operator of this package.

What it is for: upstream providers mark an operator whose retries reconnect instead of starting
over with a class attribute written ``__supports_durable_execution = True`` in the class body
(the KubernetesPodOperator in cncf.kubernetes 10.25, apache/airflow #70289 and #70291). Inside a
class body Python mangles that name to ``_<ClassName>__supports_durable_execution`` (leading
underscores of the class name stripped), and that mangled name is what readers look up: the
Airflow Registry's extractor (``dev/registry/extract_parameters.py``, ``is_durable_capable``)
reads ``getattr(cls, f"_{cls.__name__}__supports_durable_execution") is True`` for its
"durable" badge (#69651). The mangled name is deliberately not inherited in meaning: a subclass
has another name, so it must declare the marker itself.

How it works: :func:`declare` sets that exact attribute on one class, in the class's own
``__dict__``, as the class-body spelling would. The core mixin (Airflow >= 3.3) calls it for
every operator class defined in ``resumable_jobs.providers``; the pre-3.3 shim never does,
because there every retry submits a new job. :func:`declares_durable_execution` reads the marker
the way the registry does.

What it does not do: mark operators users write on our mixin, or subclasses of ours: whether such
a class still reconnects depends on its own ``execute``, which the registry judges by itself.
"""

from __future__ import annotations

__all__ = [
    "MARKER",
    "OWN_OPERATOR_PACKAGE",
    "declare",
    "declares_durable_execution",
    "is_own_operator",
    "marker_attribute",
]

#: The attribute as written in a class body.
MARKER = "__supports_durable_execution"
#: Operator classes of this package live under this module prefix.
OWN_OPERATOR_PACKAGE = "resumable_jobs.providers."


def marker_attribute(cls: type) -> str:
    """The name ``__supports_durable_execution`` becomes in the body of ``cls`` (Python's name mangling)."""
    return f"_{cls.__name__.lstrip('_')}{MARKER}"


def declare(cls: type) -> None:
    """Mark ``cls`` itself as recovering on retry, as ``__supports_durable_execution = True`` in its body would."""
    setattr(cls, marker_attribute(cls), True)


def declares_durable_execution(cls: type) -> bool:
    """Whether ``cls`` carries the marker, read as the Airflow Registry reads it."""
    return getattr(cls, marker_attribute(cls), None) is True


def is_own_operator(cls: type) -> bool:
    """True for the operator classes this package ships (not mixin layers, not users' subclasses)."""
    return cls.__module__.startswith(OWN_OPERATOR_PACKAGE) and not vars(cls).get("_resumable_mixin_layer")
