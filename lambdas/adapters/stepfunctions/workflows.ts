import {
  DescribeExecutionCommand,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  type SFNClientConfig,
} from '@aws-sdk/client-sfn';
import type { ExecutionStatus, Workflows } from '../../ports/workflows.js';
import type { SdkClientOptions } from '../sdk-client.js';

export interface StepFunctionsOptions extends SdkClientOptions<SFNClient, SFNClientConfig> {
  /** Workflow name (the ASL file's base name) → state machine ARN. */
  stateMachines: Record<string, string>;
}

/** Execution ARNs derive from the state machine ARN and the execution name, as in AWS. */
export function executionArnFor(stateMachineArn: string, name: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
}

export function createStepFunctionsWorkflows(options: StepFunctionsOptions): Workflows {
  const client = options.client ?? new SFNClient(options.clientConfig ?? {});
  const arnOf = (workflow: string) => {
    const arn = options.stateMachines[workflow];
    if (!arn) throw new Error(`no state machine is configured for workflow ${workflow}`);
    return arn;
  };

  return {
    async start(workflow, name, input) {
      const stateMachineArn = arnOf(workflow);
      // Step Functions answers a repeated name with identical input with the same execution, which
      // makes starting idempotent; a repeated name with other input fails with ExecutionAlreadyExists.
      const result = await client.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
      return result.executionArn!;
    },

    async describe(executionArn) {
      const result = await client.send(new DescribeExecutionCommand({ executionArn }));
      return {
        executionArn,
        status: result.status as ExecutionStatus,
        output: result.output ? JSON.parse(result.output) : undefined,
        error: result.error,
        cause: result.cause,
      };
    },

    async stop(executionArn, cause) {
      await client.send(new StopExecutionCommand({ executionArn, cause }));
    },

    async succeedTask(taskToken, output) {
      await client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output ?? {}) }));
    },

    async failTask(taskToken, error, cause) {
      await client.send(new SendTaskFailureCommand({ taskToken, error, cause }));
    },
  };
}
