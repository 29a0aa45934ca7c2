"""Durable ``KubernetesPodOperator``: a worker that shuts down keeps the pod, the retry reattaches to it."""

from __future__ import annotations

from resumable_jobs.providers.kubernetes.pod import KubernetesPodOperator

__all__ = ["KubernetesPodOperator"]
