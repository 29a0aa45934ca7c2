"""RJ007 near misses: correct mixin use, and cases the file cannot decide."""

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import BaseOperator, ResumableJobMixin

from company.operators import CompanyBaseOperator

JOB_KEY = "emr_step_id"


class Correct(BaseOperator, ResumableJobMixin):
    external_id_key = "batch_job_id"

    def execute(self, context):
        return self.execute_resumable(context)


class ConstantKey(BaseOperator, ResumableJobMixin):
    external_id_key = JOB_KEY

    def execute(self, context):
        if self.deferrable:
            return self.execute_resumable(context)
        return self.execute_resumable(context=context)


class AbstractBase(BaseOperator, ResumableJobMixin):
    def execute(self, context):
        return self.execute_resumable(context)


class LeafA(AbstractBase):
    external_id_key = "leaf_a_id"


class ExtendsProvider(DatabricksSubmitRunOperator, ResumableJobMixin):
    # The provider operator may define the key: the file cannot tell.
    def execute(self, context):
        self.log.info("starting")
        return super().execute(context)


class UnknownBase(CompanyBaseOperator, ResumableJobMixin):
    def execute(self, context):
        return self.execute_resumable(context)


class NotAMixin(BaseOperator):
    def execute(self, context):
        return self.hook.run()
