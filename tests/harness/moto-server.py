"""
moto server with the two calls volbench's preflight makes that moto 5.2.5 does not answer, each
from moto's own state, as AWS answers it:

- EC2 GetEbsDefaultKmsKeyId (moto has ModifyEbsDefaultKmsKeyId, which keeps the key, and no way
  to read it back): the key ModifyEbsDefaultKmsKeyId set, else the alias ARN of the AWS managed
  key (alias/aws/ebs);
- Service Quotas GetAWSDefaultServiceQuota: the defaults moto holds (its VPC quotas), else
  NoSuchResourceException, as its GetServiceQuota answers.

and one call it answers otherwise than AWS:

- CloudFormation CreateStack with the ClientRequestToken of the create that made a live stack of
  that name: that same create, answered with the stack's id, as CloudFormation answers a retry.
  moto raises AlreadyExistsException, so an SDK retry of a create whose answer was lost (on a
  loaded machine: "Stack volbench-…-gp3-1g already exists" for a fleet created a moment before)
  failed here where AWS would have answered it.

Everything else is moto's. (The quotas a test sets are another server's: tests/harness/
service-quotas.ts.) Run as `python3 moto-server.py -H 127.0.0.1 -p PORT`, as `python3 -m
moto.server` is.
"""
import sys

from moto.cloudformation.responses import CloudFormationResponse
from moto.core.responses import ActionResult
from moto.ec2.responses.elastic_block_store import ElasticBlockStore
from moto.server import main
from moto.servicequotas.responses import ServiceQuotasResponse


def get_ebs_default_kms_key_id(self):
    backend = self.ec2_backend
    key = backend.default_kms_key_id or f"arn:aws:kms:{self.region}:{self.current_account}:alias/aws/ebs"
    return ActionResult({"KmsKeyId": key})


def get_aws_default_service_quota(self):
    # moto's get_service_quota answers from the defaults it holds, or raises NoSuchResource.
    return self.get_service_quota()


# The token each live stack was created with, by stack id (ids are new after /moto-api/reset).
create_tokens = {}
moto_create_stack = CloudFormationResponse.create_stack


def create_stack(self):
    name = self._get_param("StackName")
    token = self._get_param("ClientRequestToken")
    live = lambda: [s for s in self.cloudformation_backend.stacks.values() if s.name == name]
    if token:
        for stack in live():
            if create_tokens.get(stack.stack_id) == token:
                return ActionResult({"StackId": stack.stack_id})
    result = moto_create_stack(self)
    if token:
        for stack in live():
            create_tokens[stack.stack_id] = token
    return result


CloudFormationResponse.create_stack = create_stack

if not hasattr(ServiceQuotasResponse, "get_aws_default_service_quota"):
    ServiceQuotasResponse.get_aws_default_service_quota = get_aws_default_service_quota

if not hasattr(ElasticBlockStore, "get_ebs_default_kms_key_id"):
    ElasticBlockStore.get_ebs_default_kms_key_id = get_ebs_default_kms_key_id

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
