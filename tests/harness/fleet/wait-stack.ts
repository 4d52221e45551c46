/**
 * Waiting, from outside the fleet, for a stack the fleet is creating: the rehearsal plays a
 * member once its stack is complete in moto.
 *
 * It asks ListStacks, never DescribeStacks, until the stack is complete. moto builds a stack's
 * resources in the thread of the CreateStack request, and DescribeStacks renders the stack's
 * outputs by looking its resources up, making any not built yet in its own thread: a stack
 * described while it was being created got a second instance and security group, which its
 * stack does not name and which outlived its deletion (the fleet's teardown terminates such an
 * instance by its tag; the security group was found left behind, under load, when creation is
 * slow). ListStacks renders no outputs. Once complete, the stack is described once.
 */
import { DescribeStacksCommand, ListStacksCommand, type CloudFormationClient, type Stack } from '@aws-sdk/client-cloudformation';

/** The stack's status while it exists (not deleted), or undefined before it does. */
async function statusOf(cfn: CloudFormationClient, name: string): Promise<string | undefined> {
  let NextToken: string | undefined;
  do {
    const page = await cfn.send(new ListStacksCommand({ NextToken }));
    const found = (page.StackSummaries ?? []).find((s) => s.StackName === name && s.StackStatus !== 'DELETE_COMPLETE');
    if (found) return found.StackStatus;
    NextToken = page.NextToken;
  } while (NextToken);
  return undefined;
}

/** The stack once CREATE_COMPLETE; throws when it fails, is deleted, or is not complete within `ms`. */
export async function waitForStack(cfn: CloudFormationClient, name: string, ms: number, { pollMs = 250 }: { pollMs?: number } = {}): Promise<Stack> {
  const deadline = Date.now() + ms;
  for (;;) {
    const status = await statusOf(cfn, name);
    if (status === 'CREATE_COMPLETE') {
      const stack = (await cfn.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
      if (stack) return stack;
    }
    if (status && /FAILED|ROLLBACK|DELETE/.test(status)) throw new Error(`${name}: ${status}`);
    if (Date.now() > deadline) throw new Error(`${name}: not created within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
