"""YARN as a cluster manager: ``spark-submit --master yarn``, a tag with the token, the RM REST API.

What it is for: Spark applications on YARN (EMR, Dataproc, on-premise Hadoop) in cluster mode,
crash-safe: the driver runs in the application master on the cluster, and a retry finds the
application even when the worker died before its id was persisted.

How it works: the submission adds :func:`yarn_tag` of the token to ``spark.yarn.tags`` (next to
any tags the task sets) and ``spark.yarn.submit.waitAppCompletion=false``; ``env_vars`` become
``spark.yarn.appMasterEnv.*`` and the environment of ``spark-submit`` itself (so
``HADOOP_CONF_DIR`` and friends can be set per task, as upstream allows). The application id
(``application_<cluster start>_<n>``) is read from the output. ``find`` lists
``/ws/v1/cluster/apps?applicationTags=<tag>``; status is ``/ws/v1/cluster/apps/<id>``
(:mod:`~resumable_jobs.providers.spark.yarn.status`); cancel is ``PUT .../state {"state":
"KILLED"}``. Every REST call goes through
:class:`~resumable_jobs.providers.spark.yarn.rm_client.ResourceManagerClient` (HA) with
``yarn_rm_auth``, SPNEGO or no authentication.

What it does not do: it cannot see applications the RM has already forgotten
(``yarn.resourcemanager.max-completed-applications``): a stored id the RM no longer knows makes
the retry submit a new application. It does not fetch the driver's log (``yarn logs``).
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from resumable_jobs.providers.spark.credentials import resource_manager_auth
from resumable_jobs.providers.spark.spark_submit_manager import SparkSubmitClusterManager, no_waiting
from resumable_jobs.providers.spark.yarn.rm_client import ResourceManagerClient, ResourceManagerUnavailable
from resumable_jobs.providers.spark.yarn.status import YarnApplicationStatus, is_active, is_succeeded

if TYPE_CHECKING:
    from resumable_jobs.providers.spark.yarn.trigger import YarnApplicationTrigger

__all__ = ["TAG_PREFIX", "YarnClusterManager", "yarn_tag"]

#: Every application the operator submits carries ``<TAG_PREFIX><token>`` in its YARN tags. (No
#: "token" in it: Spark's default redaction pattern would hide the tag in its UI and logs.)
TAG_PREFIX = "resumable-jobs-submission-"
WAIT_CONF = "spark.yarn.submit.waitAppCompletion"
TAGS_CONF = "spark.yarn.tags"


def yarn_tag(token: str) -> str:
    """The tag for ``token``: lower-case, because YARN lower-cases tags (the token's nonce is hex)."""
    return f"{TAG_PREFIX}{token}".lower()


class YarnClusterManager(SparkSubmitClusterManager):
    """Spark applications on YARN (see the module docstring)."""

    noun: ClassVar[str] = "YARN application"
    lost_hint: ClassVar[str] = (
        "the ResourceManager no longer knows it (restarted without recovery, or it dropped the finished "
        "application); a retry submits a new application"
    )
    id_pattern: ClassVar[re.Pattern[str]] = re.compile(r"\b(application_\d+_\d+)\b")
    transient_errors: ClassVar[tuple[type[Exception], ...]] = (ResourceManagerUnavailable,)

    def __init__(self, *args: Any, yarn_rm_auth: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.yarn_rm_auth = yarn_rm_auth

    @cached_property
    def rm(self) -> ResourceManagerClient:
        auth = resource_manager_auth(self.yarn_rm_auth, kerberos=self.kerberos)
        return ResourceManagerClient(self.connection.resource_manager_urls, auth=auth)

    # ----------------------------------------------------------------- submission
    def submission_conf(self, token: str) -> dict[str, str]:
        own = [t.strip() for t in str(self.spec.conf.get(TAGS_CONF, "")).split(",") if t.strip()]
        conf = {TAGS_CONF: ",".join([*own, yarn_tag(token)])}
        conf.update(no_waiting(self.spec.conf, WAIT_CONF))
        for key, value in self.env_vars.items():
            conf[f"spark.yarn.appMasterEnv.{key}"] = value
        return conf

    def describe_tag(self, token: str) -> str:
        return f"{TAGS_CONF}={yarn_tag(token)}"

    def process_env(self) -> dict[str, str]:
        return {**super().process_env(), **self.env_vars}

    # ----------------------------------------------------------------- following it
    def find(self, token: str) -> str | None:
        tag = yarn_tag(token)
        found = [
            YarnApplicationStatus.from_report(app)
            for app in self.rm.applications_tagged(tag)
            if tag in {t.lower() for t in str(app.get("applicationTags") or "").split(",")}
        ]
        if not found:
            return None
        # Several only when one generation ran spark-submit twice (a lookup that lagged behind a
        # submission): prefer one that may still succeed, then the most recent.
        found.sort(key=lambda s: (s.active or s.succeeded, s.started_time), reverse=True)
        if len(found) > 1:
            self.log.warning(
                "%d YARN applications carry tag %s: %s; following %s",
                len(found),
                tag,
                [s.app_id for s in found],
                found[0].app_id,
            )
        return found[0].app_id

    def status(self, app_id: str) -> YarnApplicationStatus:
        return YarnApplicationStatus.from_report(self.rm.application(app_id))

    def is_active(self, state: str) -> bool:
        return is_active(state)

    def is_succeeded(self, state: str) -> bool:
        return is_succeeded(state)

    def check_ready(self) -> None:
        self.rm  # noqa: B018 - raises when the connection names no ResourceManager

    def cancel(self, app_id: str) -> None:
        state = self.rm.kill(app_id)
        self.log.info("Asked the ResourceManager to kill YARN application %s (it reports %s)", app_id, state or "?")

    def trigger(self, app_id: str, poll_interval: float) -> YarnApplicationTrigger:
        from resumable_jobs.providers.spark.yarn.trigger import YarnApplicationTrigger

        return YarnApplicationTrigger(
            app_id=app_id,
            rm_urls=list(self.rm.urls),
            kerberos=self.kerberos,
            poll_interval=poll_interval,
        )

    def ui_url(self, app_id: str) -> str | None:
        return self.rm.app_page(app_id)
