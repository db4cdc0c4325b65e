export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';

export interface ExecutionDescription {
  executionArn: string;
  status: ExecutionStatus;
  output?: unknown;
  error?: string;
  cause?: string;
}

/** Starts and steers durable workflow executions (Step Functions in AWS). */
export interface Workflows {
  /** Idempotent on `name`: starting the same name with the same input returns the same execution. */
  start(workflow: string, name: string, input: unknown): Promise<string>;
  describe(executionArn: string): Promise<ExecutionDescription>;
  stop(executionArn: string, cause: string): Promise<void>;
  /** Completes a task that waits for a callback (task-token pattern). */
  succeedTask(taskToken: string, output: unknown): Promise<void>;
  failTask(taskToken: string, error: string, cause: string): Promise<void>;
}
