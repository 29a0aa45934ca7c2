"""``KubernetesPodOperator``: run a task in a pod that a retry reattaches to instead of starting another.

What it is for: a drop-in replacement for the ``cncf.kubernetes`` provider's
``KubernetesPodOperator`` (same parameters, same pod, same logs and XCom) whose pod outlives a
worker that shuts down (eviction, deploy, spot reclaim): the retry reattaches to that exact pod -
synchronously, deferred, or after the pod already finished - and a pod nobody will follow any more
(task marked failed, ``execution_timeout``, last try failed, worker lost on its last try) is
deleted.

How it works: the pod is built by upstream's own code. At run time (never at DAG parse time) the
operator creates an instance of upstream's ``KubernetesPodOperator`` from its rendered parameters
- the *pod kit* - and calls its public building blocks: ``build_pod_request_obj`` (pod template,
full pod spec, secrets, XCom sidecar, task-instance labels, ``pod_mutation_hook``),
``await_pod_start``, ``await_init_containers_completion``, ``await_pod_completion`` (log
streaming), ``extract_xcom``, ``post_complete_action`` (``on_finish_action``,
``skip_on_exit_code``, failure messages) and its ``PodManager``. The kit's ``execute`` and
``on_kill`` never run: which pod a try follows, and when a pod is deleted, is the mixin's
decision. The pod carries the submission token as the label
:data:`~resumable_jobs.providers.kubernetes.identity.TOKEN_LABEL`; ``find_job`` lists pods by it,
which closes the window between the create call and the identity being stored. The store key is
``pod_identifier`` (upstream's durable key), holding namespace, name and uid
(:mod:`resumable_jobs.providers.kubernetes.identity`). Deferred tries hand the pod to
:class:`~resumable_jobs.providers.kubernetes.trigger.PodTrigger` (upstream's trigger kwargs and
event shape, on an API client shared per triggerer and cluster), with the uid in its
``trigger_kwargs`` so the trigger follows, and the event names, the exact pod.

What it does not do: it does not subclass upstream's operator (its module is heavy, and its
``execute`` would create pods on its own terms). It does not re-defer inside one try after a
trigger error while the pod still runs (upstream does up to three times): the try fails, the pod
is kept, and the retry defers again to the same pod. ``reattach_on_restart`` is accepted as
upstream's old name of ``durable``. Below Airflow 3.3 there is no store: every try creates a pod.
"""

from __future__ import annotations

import datetime
import hashlib
import inspect
import json
import os
import warnings
from collections.abc import Callable, Container, Iterable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, ResumableJobMixin
from resumable_jobs.mixin.errors import JobNotFoundError
from resumable_jobs.providers.common import default_deferrable, push_xcom
from resumable_jobs.providers.kubernetes import identity, status
from resumable_jobs.providers.kubernetes.log_position import PersistedLogTimes, log_position_key, resume_times

if TYPE_CHECKING:
    from airflow.providers.cncf.kubernetes.callbacks import KubernetesPodOperatorCallback
    from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator as UpstreamPodOperator
    from airflow.providers.cncf.kubernetes.secret import Secret
    from airflow.sdk import Context
    from kubernetes.client import models as k8s

    from resumable_jobs.providers.kubernetes.trigger import PodTrigger

__all__ = ["KubernetesPodOperator"]

BASE_CONTAINER_NAME = "base"
ON_FINISH_ACTIONS = ("delete_pod", "delete_succeeded_pod", "keep_pod", "delete_active_pod")
ON_KILL_ACTIONS = ("delete_pod", "keep_pod")
#: ``trigger_kwargs`` entry carrying the pod's uid through upstream's trigger into its event.
UID_EVENT_KEY = "resumable_jobs_pod_uid"

#: Upstream's parameters that shape the pod: a retry whose rendered values differ does not
#: reattach (mapped inputs that shifted, an edited DAG) but creates a new pod.
POD_SHAPING_PARAMETERS = (
    "namespace", "image", "name", "cmds", "arguments", "ports", "volume_mounts", "volumes", "env_vars",
    "env_from", "secrets", "labels", "image_pull_policy", "annotations", "container_resources", "affinity",
    "runtime_class_name", "node_selector", "image_pull_secrets", "service_account_name",
    "automount_service_account_token", "hostnetwork", "host_aliases", "tolerations", "security_context",
    "container_security_context", "dnspolicy", "dns_config", "hostname", "subdomain", "schedulername",
    "full_pod_spec", "init_containers", "do_xcom_push", "pod_template_file", "pod_template_dict",
    "priority_class_name", "pod_runtime_info_envs", "termination_grace_period", "configmaps",
    "base_container_name", "termination_message_policy", "active_deadline_seconds",
)  # fmt: skip

#: Kubernetes model classes whose fields upstream renders as templates (class name -> fields).
NESTED_TEMPLATE_FIELDS = {
    "V1EnvVar": ("value", "name"),
    "V1ResourceRequirements": ("limits", "requests"),
    "V1Volume": ("name", "persistent_volume_claim", "config_map"),
    "V1VolumeMount": ("name", "sub_path"),
    "V1PersistentVolumeClaimVolumeSource": ("claim_name",),
    "V1ConfigMapVolumeSource": ("name",),
    "V1EnvFromSource": ("config_map_ref",),
    "V1ConfigMapEnvSource": ("name",),
}


class KubernetesPodOperator(ResumableJobMixin, BaseOperator):
    """Run a task in a Kubernetes pod; a retry reattaches to the pod instead of creating another.

    What it is for: every parameter of the ``cncf.kubernetes`` provider's
    ``KubernetesPodOperator`` with upstream's meaning (the pod is built by upstream's code), plus
    the common model of this package: ``durable`` (``reattach_on_restart`` is its old name),
    ``cancel_on_worker_shutdown``, ``deferrable`` and ``wait_for_termination``.

    How it works: ``execute`` lets the mixin decide per try - create a pod (labelled with the
    submission token), reattach to the stored pod while it is Pending/Running (saying so in the
    log, and continuing the pod's log where the previous try left it), read the result of a pod
    that already finished (exit code; the XCom sidecar's ``return.json`` with
    ``do_xcom_push=True``), or create a new pod when the stored one failed, is gone, or is
    another pod with the same name. It then follows the pod (logs streamed), defers to
    :class:`~resumable_jobs.providers.kubernetes.trigger.PodTrigger`, or returns the pod's
    identity when not waiting. The result is upstream's: the XCom sidecar's value with
    ``do_xcom_push=True``, else None; ``pod_name`` and ``pod_namespace`` are pushed to XCom on
    every path, as upstream does.

    What it does not do: a worker's SIGTERM does not delete the pod (the retry reattaches to it;
    ``cancel_on_worker_shutdown=True`` restores upstream's deletion). ``on_kill_action="keep_pod"``
    keeps the pod in every case the mixin would delete it.
    """

    external_id_key = "pod_identifier"
    external_id_xcom_ignores_do_xcom_push = True
    poll_interval_parameters = ("poll_interval",)

    template_fields: Sequence[str] = (
        "image",
        "name",
        "hostname",
        "cmds",
        "annotations",
        "arguments",
        "env_vars",
        "labels",
        "config_file",
        "pod_template_file",
        "pod_template_dict",
        "namespace",
        "container_resources",
        "volumes",
        "volume_mounts",
        "cluster_context",
        "env_from",
        "configmaps",
        "node_selector",
        "kubernetes_conn_id",
        "base_container_name",
        "trigger_kwargs",
    )
    template_fields_renderers: ClassVar[dict[str, str]] = {"env_vars": "py"}

    def __init__(
        self,
        *,
        kubernetes_conn_id: str | None = "kubernetes_default",
        namespace: str | None = None,
        image: str | None = None,
        name: str | None = None,
        random_name_suffix: bool = True,
        cmds: list[str] | None = None,
        arguments: list[str] | None = None,
        ports: list[k8s.V1ContainerPort] | None = None,
        volume_mounts: list[k8s.V1VolumeMount] | None = None,
        volumes: list[k8s.V1Volume] | None = None,
        env_vars: list[k8s.V1EnvVar] | dict[str, str] | None = None,
        env_from: list[k8s.V1EnvFromSource] | None = None,
        secrets: list[Secret] | None = None,
        in_cluster: bool | None = None,
        cluster_context: str | None = None,
        labels: dict | None = None,
        reattach_on_restart: bool | None = None,
        durable: bool | None = None,
        startup_timeout_seconds: int = 120,
        startup_check_interval_seconds: int = 5,
        schedule_timeout_seconds: int | None = None,
        get_logs: bool = True,
        base_container_name: str | None = None,
        base_container_status_polling_interval: float = 1,
        init_container_logs: Iterable[str] | str | Literal[True] | None = None,
        container_logs: Iterable[str] | str | Literal[True] | None = None,
        image_pull_policy: str | None = None,
        annotations: dict | None = None,
        container_resources: k8s.V1ResourceRequirements | None = None,
        affinity: k8s.V1Affinity | None = None,
        config_file: str | None = None,
        runtime_class_name: str | None = None,
        node_selector: dict | None = None,
        image_pull_secrets: list[k8s.V1LocalObjectReference] | None = None,
        service_account_name: str | None = None,
        automount_service_account_token: bool | None = None,
        hostnetwork: bool = False,
        host_aliases: list[k8s.V1HostAlias] | None = None,
        tolerations: list[k8s.V1Toleration] | None = None,
        security_context: k8s.V1PodSecurityContext | dict | None = None,
        container_security_context: k8s.V1SecurityContext | dict | None = None,
        xcom_sidecar_container_security_context: k8s.V1SecurityContext | dict | None = None,
        dnspolicy: str | None = None,
        dns_config: k8s.V1PodDNSConfig | None = None,
        hostname: str | None = None,
        subdomain: str | None = None,
        schedulername: str | None = None,
        full_pod_spec: k8s.V1Pod | None = None,
        init_containers: list[k8s.V1Container] | None = None,
        log_events_on_failure: bool = False,
        log_events_on_startup: bool = True,
        do_xcom_push: bool = False,
        pod_template_file: str | None = None,
        pod_template_dict: dict | None = None,
        priority_class_name: str | None = None,
        pod_runtime_info_envs: list[k8s.V1EnvVar] | None = None,
        termination_grace_period: int | None = None,
        configmaps: list[str] | None = None,
        skip_on_exit_code: int | Container[int] | None = None,
        deferrable: bool | None = None,
        poll_interval: float = 2,
        log_pod_spec_on_failure: bool = True,
        on_finish_action: str = "delete_pod",
        on_kill_action: str = "delete_pod",
        is_delete_operator_pod: None | bool = None,
        termination_message_policy: str = "File",
        active_deadline_seconds: int | None = None,
        callbacks: list[type[KubernetesPodOperatorCallback]] | type[KubernetesPodOperatorCallback] | None = None,
        progress_callback: Callable[[str], None] | None = None,
        logging_interval: int | None = None,
        trigger_kwargs: dict | None = None,
        container_name_log_prefix_enabled: bool = True,
        log_formatter: Callable[[str, str], str] | None = None,
        wait_for_termination: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        if reattach_on_restart is not None:
            warnings.warn(
                "reattach_on_restart is upstream's old name of durable; use durable "
                f"(durable={reattach_on_restart!r} is applied).",
                DeprecationWarning,
                stacklevel=3,
            )
            if durable is None:
                durable = reattach_on_restart
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        _check_choice("on_finish_action", on_finish_action, ON_FINISH_ACTIONS, self.task_id)
        _check_choice("on_kill_action", on_kill_action, ON_KILL_ACTIONS, self.task_id)
        self.kubernetes_conn_id = kubernetes_conn_id
        self.namespace = namespace
        self.image = image
        self.name = name
        self.random_name_suffix = random_name_suffix
        self.cmds = cmds or []
        self.arguments = arguments or []
        self.ports = ports
        self.volume_mounts = volume_mounts or []
        self.volumes = volumes or []
        self.env_vars = env_vars or []
        self.env_from = env_from or []
        self.secrets = secrets
        self.in_cluster = in_cluster
        self.cluster_context = cluster_context
        self.labels = labels or {}
        self.startup_timeout_seconds = startup_timeout_seconds
        self.startup_check_interval_seconds = startup_check_interval_seconds
        self.schedule_timeout_seconds = schedule_timeout_seconds
        self.get_logs = get_logs
        self.base_container_name = base_container_name or BASE_CONTAINER_NAME
        self.base_container_status_polling_interval = base_container_status_polling_interval
        self.init_container_logs = init_container_logs
        self.container_logs = container_logs
        self.image_pull_policy = image_pull_policy
        self.annotations = annotations or {}
        self.container_resources = container_resources
        self.affinity = affinity
        self.config_file = config_file
        self.runtime_class_name = runtime_class_name
        self.node_selector = node_selector or {}
        self.image_pull_secrets = image_pull_secrets
        self.service_account_name = service_account_name
        self.automount_service_account_token = automount_service_account_token
        self.hostnetwork = hostnetwork
        self.host_aliases = host_aliases
        self.tolerations = tolerations
        self.security_context = security_context
        self.container_security_context = container_security_context
        self.xcom_sidecar_container_security_context = xcom_sidecar_container_security_context
        self.dnspolicy = dnspolicy
        self.dns_config = dns_config
        self.hostname = hostname
        self.subdomain = subdomain
        self.schedulername = schedulername
        self.full_pod_spec = full_pod_spec
        self.init_containers = init_containers
        self.log_events_on_failure = log_events_on_failure
        self.log_events_on_startup = log_events_on_startup
        self.do_xcom_push = do_xcom_push
        self.pod_template_file = pod_template_file
        self.pod_template_dict = pod_template_dict
        self.priority_class_name = priority_class_name
        self.pod_runtime_info_envs = pod_runtime_info_envs
        self.termination_grace_period = termination_grace_period
        self.configmaps = configmaps or []
        self.skip_on_exit_code = skip_on_exit_code
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.poll_interval = poll_interval
        self.log_pod_spec_on_failure = log_pod_spec_on_failure
        self.on_finish_action = on_finish_action
        self.on_kill_action = on_kill_action
        self.is_delete_operator_pod = is_delete_operator_pod
        self.termination_message_policy = termination_message_policy
        self.active_deadline_seconds = active_deadline_seconds
        self.callbacks = callbacks
        self.progress_callback = progress_callback
        self.logging_interval = logging_interval
        self.trigger_kwargs = trigger_kwargs
        self.container_name_log_prefix_enabled = container_name_log_prefix_enabled
        self.log_formatter = log_formatter
        self.wait_for_termination = wait_for_termination

    # ----------------------------------------------------------------- templating (as upstream)
    def _do_render_template_fields(
        self, parent: Any, template_fields: Any, context: Any, jinja_env: Any, seen_oids: Any
    ) -> None:
        # A {name: value} mapping becomes V1EnvVar objects first, so names render too (upstream does so).
        if parent is self and isinstance(self.env_vars, dict):
            from airflow.providers.cncf.kubernetes.backcompat.backwards_compat_converters import convert_env_vars

            self.env_vars = convert_env_vars(self.env_vars)
        super()._do_render_template_fields(parent, template_fields, context, jinja_env, seen_oids)

    def _render_nested_template_fields(self, content: Any, context: Any, jinja_env: Any, seen_oids: set) -> None:
        fields = NESTED_TEMPLATE_FIELDS.get(type(content).__name__)
        if fields and id(content) not in seen_oids and type(content).__module__.startswith("kubernetes."):
            seen_oids.add(id(content))
            self._do_render_template_fields(content, fields, context, jinja_env, seen_oids)
            return
        super()._render_nested_template_fields(content, context, jinja_env, seen_oids)

    # ----------------------------------------------------------------- upstream's pod kit
    @cached_property
    def pod_kit(self) -> UpstreamPodOperator:
        """Upstream's operator built from this task's rendered parameters; only its building blocks are called."""
        from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator as Upstream

        arguments = {name: getattr(self, name) for name in _UPSTREAM_PARAMETERS}
        arguments["callbacks"] = self.callbacks
        kit = Upstream(task_id=self.task_id, **arguments)
        kit.name = Upstream._set_name(kit.name)  # upstream's name check and DNS-1123 clean-up, as in its execute
        return kit

    @property
    def pod_manager(self) -> Any:
        return self.pod_kit.pod_manager

    def _pod_request(self, context: Context) -> k8s.V1Pod:
        """The pod upstream would create for this try (built once per try)."""
        request = self.__dict__.get("_resumable_pod_request")
        if request is None:
            request = self.pod_kit.build_pod_request_obj(context)
            self.__dict__["_resumable_pod_request"] = request
        return request

    def _callbacks(self, method: str, context: Context | None, **kwargs: Any) -> None:
        if not self.pod_kit.callbacks:
            return
        from airflow.providers.cncf.kubernetes.callbacks import ExecutionMode

        for callback in self.pod_kit.callbacks:
            getattr(callback, method)(
                client=self.pod_kit.client, mode=ExecutionMode.SYNC, context=context, operator=self, **kwargs
            )

    # ----------------------------------------------------------------- the request
    def request_fingerprint(self, context: Context) -> str | None:
        values = {name: getattr(self, name) for name in POD_SHAPING_PARAMETERS}
        payload = json.dumps(values, sort_keys=True, default=_stable)
        return hashlib.sha256(payload.encode()).hexdigest()

    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    # ----------------------------------------------------------------- the contract
    def submit_job(self, context: Context) -> identity.PodIdentity:
        request = self._pod_request(context)
        if self.submission_token:
            request.metadata.labels[identity.TOKEN_LABEL] = identity.token_label_value(self.submission_token)
        self._callbacks("on_pod_manifest_created", context, pod_request=request)
        created = self.pod_manager.create_pod(pod=request)
        self.__dict__["_resumable_created_uid"] = created.metadata.uid
        self.log.info(
            "Created pod %s/%s (uid %s)", created.metadata.namespace, created.metadata.name, created.metadata.uid
        )
        return identity.identity_of(created)

    def find_job(self, token: str, context: Context) -> identity.PodIdentity | None:
        namespace = self._pod_request(context).metadata.namespace
        selector = f"{identity.TOKEN_LABEL}={identity.token_label_value(token)}"
        pods = self.pod_kit.client.list_namespaced_pod(namespace=namespace, label_selector=selector).items
        if not pods:
            return None
        if len(pods) > 1:
            self.log.warning(
                "%d pods carry submission token %s: following the newest, %s",
                len(pods),
                token,
                [pod.metadata.name for pod in pods],
            )
        newest = max(pods, key=lambda pod: str(pod.metadata.creation_timestamp or ""))
        return identity.identity_of(newest)

    def get_job_status(self, external_id: Any, context: Context) -> str:
        return status.pod_status(self._read_our_pod(external_id, context), self.base_container_name)

    def is_job_active(self, job_status: str) -> bool:
        return status.is_active(job_status)

    def is_job_succeeded(self, job_status: str) -> bool:
        return status.is_succeeded(job_status)

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        kit = self.pod_kit
        pod = self._follow(external_id, context)
        self._callbacks("on_pod_creation", context, pod=pod)
        kit.await_pod_start(pod=pod)
        kit.await_init_containers_completion(pod=pod)
        self._callbacks("on_pod_starting", context, pod=pod)
        try:
            kit.await_pod_completion(pod=pod)  # streams the logs while the base container runs
        finally:
            self._flush_log_position()
        self.__dict__["_resumable_logs_written"] = True
        remote = self.pod_manager.read_pod(pod)
        self._callbacks("on_pod_completion", context, pod=remote)
        self._callbacks("on_pod_teardown", context, pod=remote)
        if status.pod_status(remote, self.base_container_name) == status.FAILED:
            self._finish_failed_pod(remote, context)

    def get_job_result(self, external_id: Any, context: Context) -> Any:
        """Upstream's return value: the XCom sidecar's result with ``do_xcom_push=True``, else None."""
        kit = self.pod_kit
        try:
            pod = self._follow(external_id, context)
        except JobNotFoundError as gone:
            if self.do_xcom_push:
                raise ExternalJobFailed(f"the XCom result of pod {identity.describe(external_id)} is lost: {gone}")
            # As upstream after a deferral: the pod finished and was deleted; nothing is left to read.
            self.log.warning(
                "Pod %s is gone (%s); it succeeded, so there is nothing left to read",
                identity.describe(external_id),
                gone,
            )
            return None
        if not self.__dict__.get("_resumable_logs_written"):
            self._write_remaining_logs(pod)
        result = None
        if self.do_xcom_push:
            self.pod_manager.await_xcom_sidecar_container_start(pod=pod)
            result = kit.extract_xcom(pod=pod)
        remote = self.pod_manager.await_pod_completion(
            pod, kit.is_istio_enabled(pod), self.base_container_name, self.do_xcom_push
        )
        kit.post_complete_action(pod=pod, remote_pod=remote, context=context, result=result)
        return result if self.do_xcom_push else None

    def build_trigger(self, external_id: Any, context: Context) -> PodTrigger:
        from resumable_jobs.providers.kubernetes.trigger import PodTrigger

        pod = self._follow(external_id, context)
        trigger_kwargs = dict(self.trigger_kwargs or {})
        trigger_kwargs[UID_EVENT_KEY] = pod.metadata.uid
        ti = context.get("ti")
        start = getattr(ti, "start_date", None)
        if self.execution_timeout is not None and start is not None:
            trigger_kwargs["_execution_deadline"] = int(start.timestamp() + self.execution_timeout.total_seconds())
        kit = self.pod_kit
        return PodTrigger(
            pod_name=pod.metadata.name,
            pod_namespace=pod.metadata.namespace,
            trigger_start_time=datetime.datetime.now(tz=datetime.timezone.utc),
            kubernetes_conn_id=self.kubernetes_conn_id,
            connection_extras=self._connection_extras(),
            cluster_context=self.cluster_context,
            config_dict=self._config_dict(),
            in_cluster=self.in_cluster,
            poll_interval=self.poll_interval,
            get_logs=self.get_logs,
            startup_timeout=self.startup_timeout_seconds,
            startup_check_interval=self.startup_check_interval_seconds,
            log_events_on_startup=self.log_events_on_startup,
            schedule_timeout=kit.schedule_timeout_seconds,
            base_container_name=self.base_container_name,
            on_finish_action=kit.on_finish_action.value,
            on_kill_action=kit.on_kill_action.value,
            termination_grace_period=self.termination_grace_period,
            logging_interval=self.logging_interval,
            trigger_kwargs=trigger_kwargs,
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Translate the trigger's event (``status``, ``namespace``, ``name``) and finish.

        The event shape is upstream's ``KubernetesPodTrigger``'s, which :class:`PodTrigger` keeps, so a
        task deferred to upstream's trigger by an earlier release of this package resumes the same way.
        """
        pod_id = None
        if isinstance(event, dict) and "external_id" not in event and "name" in event:
            pod_id = {"namespace": event.get("namespace"), "name": event.get("name"), "uid": event.get(UID_EVENT_KEY)}
            self.__dict__["_resumable_created_uid"] = pod_id["uid"]  # this task's trigger followed it: no reattach
            trigger_status = event.get("status")
            message = event.get("message") or f"the trigger reported {trigger_status}"
            event = {
                "status": "success" if trigger_status == "success" else "error",
                "external_id": pod_id,
                "message": f"pod {identity.describe(pod_id)}: {trigger_status}: {message}",
            }
        try:
            return super().execute_complete(context, event)
        except ExternalJobFailed:
            if pod_id is not None:
                self._clean_up_if_failed(pod_id, context)
            raise

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        namespace, name, _ = identity.parse_identity(external_id)
        push_xcom(context, "pod_name", name)
        push_xcom(context, "pod_namespace", namespace)

    def cancel_job(self, external_id: Any, context: Context) -> None:
        """Delete the pod: a pod that still runs always; a finished one as ``on_finish_action`` says."""
        try:
            pod = self._read_our_pod(external_id, context)
        except JobNotFoundError as gone:
            self.log.info("Not deleting pod %s: %s", identity.describe(external_id), gone)
            return
        if status.is_active(status.pod_status(pod, self.base_container_name)):
            from kubernetes.client import models as k8s

            options = k8s.V1DeleteOptions(
                grace_period_seconds=self.termination_grace_period,
                preconditions=k8s.V1Preconditions(uid=pod.metadata.uid),
            )
            self.pod_kit.client.delete_namespaced_pod(pod.metadata.name, pod.metadata.namespace, body=options)
            self.log.info("Deleted pod %s", identity.describe(identity.identity_of(pod)))
        else:
            self.pod_kit.process_pod_deletion(pod)

    def _cancellation_disabled_reason(self) -> str | None:
        if self.on_kill_action == "keep_pod":
            return "on_kill_action='keep_pod' keeps the pod when the task is stopped"
        return None

    # ----------------------------------------------------------------- helpers
    def _expected_labels(self, context: Context) -> dict[str, str]:
        """The labels upstream puts on every pod of this task instance (without the try number)."""
        from airflow.providers.cncf.kubernetes.pod_generator import make_safe_label_value

        ti = context.get("ti")
        if ti is None or context.get("run_id") is None:
            return {}
        labels = {"dag_id": ti.dag_id, "task_id": ti.task_id, "run_id": context["run_id"]}
        if getattr(ti, "map_index", None) is not None and ti.map_index >= 0:
            labels["map_index"] = str(ti.map_index)
        return {key: make_safe_label_value(str(value)) for key, value in labels.items()}

    def _read_our_pod(self, external_id: Any, context: Context) -> k8s.V1Pod:
        """The pod ``external_id`` names - if it is still the same pod; ``JobNotFoundError`` otherwise."""
        from kubernetes.client.exceptions import ApiException

        namespace, name, _ = identity.parse_identity(external_id)
        try:
            pod = self.pod_kit.client.read_namespaced_pod(name, namespace)
        except ApiException as error:
            if error.status == 404:
                raise JobNotFoundError(external_id, f"pod {namespace}/{name} no longer exists") from error
            raise
        try:
            identity.check_ownership(external_id, pod, self._expected_labels(context))
        except JobNotFoundError as not_ours:
            self.log.warning("Not following pod %s/%s: %s", namespace, name, not_ours.detail)
            raise
        return pod

    def _follow(self, external_id: Any, context: Context) -> k8s.V1Pod:
        """Read the pod this try follows, once per try: say whether it reattached, set up the log position."""
        followed = self.__dict__.get("_resumable_followed_pod")
        if followed is not None:
            return followed
        pod = self._read_our_pod(external_id, context)
        namespace, name, uid = pod.metadata.namespace, pod.metadata.name, pod.metadata.uid
        key = log_position_key(self.external_id_key)
        store = context.get("task_state_store") if self.durable else None
        log_times = PersistedLogTimes(store, key, uid)
        resumed = resume_times(store, key, namespace, name, uid)
        log_times.update(resumed)
        self.pod_manager.container_log_times = log_times
        self.pod_kit.pod = pod  # what upstream's own helpers read
        if self.__dict__.get("_resumable_created_uid") != uid:
            since = ", ".join(f"{c} from {t}" for (_, _, c), t in resumed.items()) or "from its beginning"
            self.log.info(
                "Reattached to pod %s/%s (uid %s, %s) that an earlier try started; its log continues here (%s)",
                namespace,
                name,
                uid,
                status.pod_status(pod, self.base_container_name),
                since,
            )
        self.__dict__["_resumable_followed_pod"] = pod
        return pod

    def _flush_log_position(self) -> None:
        times = getattr(self.pod_manager, "container_log_times", None)
        if isinstance(times, PersistedLogTimes):
            times.flush()

    def _write_remaining_logs(self, pod: k8s.V1Pod) -> None:
        """Log what the pod wrote since the stored position (all of it on a first read), as upstream's resume does."""
        self.__dict__["_resumable_logs_written"] = True
        if not self.get_logs:
            return
        kit = self.pod_kit
        try:
            self.pod_manager.fetch_requested_container_logs(
                pod=pod,
                containers=kit.container_logs,
                follow_logs=False,
                container_name_log_prefix_enabled=self.container_name_log_prefix_enabled,
                log_formatter=self.log_formatter,
            )
        except Exception as error:  # noqa: BLE001 - as upstream: a log read never fails the task
            self.log.warning("Reading the logs of pod %s was interrupted: %r", pod.metadata.name, error)
        self._flush_log_position()

    def _finish_failed_pod(self, pod: k8s.V1Pod, context: Context) -> None:
        """Upstream's end of a failed pod: events, ``on_finish_action``, ``skip_on_exit_code``, the error it raises."""
        if not self.__dict__.get("_resumable_logs_written"):
            self._write_remaining_logs(pod)
        self.pod_kit.post_complete_action(pod=pod, remote_pod=pod, context=context, result=None)
        raise ExternalJobFailed(f"pod {pod.metadata.namespace}/{pod.metadata.name} failed")  # cleanup raises first

    def _clean_up_if_failed(self, pod_id: Any, context: Context) -> None:
        try:
            self._follow(pod_id, context)
            pod = self._read_our_pod(pod_id, context)  # now, not as the try first read it
        except JobNotFoundError:
            return
        if status.pod_status(pod, self.base_container_name) == status.FAILED:
            self._finish_failed_pod(pod, context)

    def _connection_extras(self) -> dict | None:
        """The connection's extras, so the triggerer need not resolve the connection itself (as upstream)."""
        if not self.kubernetes_conn_id:
            return None
        from resumable_jobs.shims.sdk_names import base_hook

        try:
            return base_hook().get_connection(self.kubernetes_conn_id).extra_dejson
        except Exception as error:  # noqa: BLE001 - the triggerer tries its own environment then
            self.log.warning("Connection %s not resolved for the trigger: %s", self.kubernetes_conn_id, error)
            return None

    def _config_dict(self) -> dict | None:
        """``config_file`` (or ``$KUBECONFIG``) as a dict for the trigger, as upstream hands it over."""
        path = self.config_file or os.environ.get("KUBECONFIG")
        if not path:
            return None
        import yaml

        with open(path) as handle:
            return yaml.safe_load(handle)


#: Upstream's ``__init__`` parameters this operator hands to the pod kit (all but the durable flags).
_UPSTREAM_PARAMETERS = tuple(
    name
    for name, parameter in inspect.signature(inspect.unwrap(KubernetesPodOperator.__init__)).parameters.items()
    if parameter.kind is parameter.KEYWORD_ONLY
    and name not in ("reattach_on_restart", "durable", "wait_for_termination", "cancel_on_worker_shutdown", "callbacks")
)


def _check_choice(name: str, value: Any, choices: tuple[str, ...], task_id: str) -> None:
    if isinstance(value, str) and value.startswith("{{"):
        return
    if value not in choices:
        raise ValueError(f"KubernetesPodOperator(task_id={task_id!r}): {name} must be one of {choices}, got {value!r}")


def _stable(value: Any) -> Any:
    """A JSON form of a parameter value that is the same in every process (no memory addresses)."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if callable(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__name__)}"
    if hasattr(value, "__dict__"):
        return {key: item for key, item in sorted(vars(value).items()) if not key.startswith("_")}
    return repr(value)
