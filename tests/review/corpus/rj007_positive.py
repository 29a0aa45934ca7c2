"""RJ007 positives: ResumableJobMixin subclasses that switch the protection off."""

from airflow.sdk import BaseOperator, ResumableJobMixin
from airflow.sdk import ResumableJobMixin as Resumable


class CustomExecute(BaseOperator, ResumableJobMixin):
    external_id_key = "custom_job_id"

    def execute(self, context):
        job_id = self.submit_job(context)
        self.poll_until_complete(job_id, context)


class NoKey(BaseOperator, Resumable):
    def execute(self, context):
        return self.execute_resumable(context)


class DottedKey(ResumableJobMixin, BaseOperator):
    external_id_key = "spark.driver/id"

    def execute(self, context):
        return self.execute_resumable(context)


class BaseJobOperator(BaseOperator, ResumableJobMixin):
    """Abstract in this file: only its most derived subclass is checked for the key."""

    def execute(self, context):
        return self.execute_resumable(context)


class ConcreteWithoutKey(BaseJobOperator):
    pass
