/**
 * The monthly bill of a workload, from what each kind of request was measured to ask of each billed
 * component (bench/cost/meter.ts and the measure-*.ts beside it measure; prices.json prices). Pure: no I/O, so the arithmetic is tested
 * on its own (test/unit/cost-model.test.ts).
 */

/** What one request of a kind asked for, on average over the measured requests. */
export interface RequestCost {
  /** Requests measured (the average's weight). */
  measured: number;
  readUnits: number;
  writeUnits: number;
  dynamodbCalls: number;
  s3Puts: number;
  s3Gets: number;
  /** Bytes the handler logged with the logger at INFO: its structured lines and Powertools' metric line. */
  logBytes: number;
  /** The part of logBytes in INFO (or DEBUG) lines, which a function logging at WARN drops. */
  infoLogBytes?: number;
  /** The part of logBytes in Powertools' embedded-metric lines (one per invocation of a function that publishes metrics). */
  metricLogBytes?: number;
  /** Bytes of the response body. */
  responseBytes: number;
  /** The body's bytes as the agents' function URL sends them to a caller accepting gzip (text of 1 KB or more gzipped). */
  gzippedResponseBytes?: number;
  /** The handler's own time on the bench's core: wall time less the time it waited for DynamoDB Local and the local S3. */
  handlerMs: number;
}

/** Who makes a kind of request, which decides the door it comes through and the function that runs it. */
export type Caller = 'agent' | 'user' | 'stream' | 'monitor' | 'workflow';

/** One line of a workload: how many requests of a kind a month, and who makes them. */
export interface WorkloadLine {
  label: string;
  perMonth: number;
  cost: RequestCost;
  caller: Caller;
}

/** How a function is configured, as far as its bill goes. */
export interface FunctionFacts {
  memoryMb: number;
  architecture: 'arm64' | 'x86_64';
  /** Active: Lambda samples invocations that arrive without a decision; PassThrough: only a traced caller's. */
  tracing: 'Active' | 'PassThrough';
  /** Whether it writes Powertools' metric line per invocation. */
  publishesMetrics: boolean;
}

/**
 * How requests reach the functions: `function-url` (agents call their own function directly),
 * `cloudfront+rest` (agents, like people, through CloudFront and the REST API), or `http-api` (an
 * HTTP API straight in front of the function; priced for comparison, the stack has none).
 */
export type AgentDoor = 'function-url' | 'cloudfront+rest' | 'http-api';

/** What the synthesized stack holds that bills by the month, and how its functions are set up. */
export interface StackFacts {
  natGateways: number;
  alarms: number;
  secrets: number;
  hostedZones: number;
  kmsKeys: number;
  agentDoor: AgentDoor;
  /** Whether the REST API stage traces (API Gateway samples people's requests, and agents' behind it). */
  restTracing: boolean;
  /** The functions' application log level (what the bench measures logs at). */
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Whether Lambda writes its START/END/REPORT lines (system log level INFO or DEBUG). */
  platformLogLines: boolean;
  /** The function running each caller's requests. */
  functions: Record<Caller, FunctionFacts>;
  /** The installer task's size (the install workflow's Fargate task), when the stack has one. */
  installerTask?: TaskFacts;
}

export interface Prices {
  perRequest: Record<
    | 'apiGatewayRest'
    | 'apiGatewayHttp'
    | 'cloudFrontHttps'
    | 'lambdaInvocation'
    | 'dynamodbReadUnit'
    | 'dynamodbWriteUnit'
    | 's3Put'
    | 's3Get'
    | 'stepFunctionsTransition'
    | 'xrayTrace'
    | 'schedulerInvocation',
    number
  >;
  perGb: Record<'cloudFrontTransferOut' | 'dataTransferOut' | 'logsIngestion', number>;
  perGbSecond: Record<'lambdaArm64' | 'lambdaX86', number>;
  monthly: Record<'natGateway' | 'cloudWatchAlarm' | 'secret' | 'hostedZone' | 'kmsKey', number>;
  xraySampling: { reservoirPerSecond: number; rate: number };
  assumedAwsLatencyMs: { dynamodbCall: number; s3Call: number };
  lambdaPlatformLogBytesPerInvocation: number;
  apiGatewayAccessLogBytesPerRequest: number;
  /** Below this memory Lambda gives a function a share of one vCPU in proportion to its memory. */
  lambdaFullVcpuMemoryMb: number;
  /** HTTP APIs meter a request per started 512 KB of request and response. */
  apiGatewayHttpMeteringBytes: number;
}

/** AWS bills a month as 730 hours. */
export const SECONDS_PER_MONTH = 730 * 3600;
const GB = 1024 ** 3;

/**
 * A Lambda's billed milliseconds for a request: its own time, slowed by the function's CPU share
 * (the bench's core counts as one vCPU, what Lambda gives at 1,769 MB and above), plus the calls it
 * waits on in AWS, rounded up.
 */
export function billedLambdaMs(cost: RequestCost, prices: Prices, memoryMb = prices.lambdaFullVcpuMemoryMb): number {
  const slowdown = Math.max(1, prices.lambdaFullVcpuMemoryMb / memoryMb);
  const waiting = cost.dynamodbCalls * prices.assumedAwsLatencyMs.dynamodbCall + (cost.s3Puts + cost.s3Gets) * prices.assumedAwsLatencyMs.s3Call;
  return Math.max(1, Math.ceil(cost.handlerMs * slowdown + waiting));
}

/** Traces X-Ray records a month under its sampling rule for requests arriving evenly at `perMonth`. */
export function sampledTraces(perMonth: number, sampling: Prices['xraySampling']): number {
  const perSecond = perMonth / SECONDS_PER_MONTH;
  const reservoir = Math.min(perSecond, sampling.reservoirPerSecond);
  return (reservoir + Math.max(0, perSecond - reservoir) * sampling.rate) * SECONDS_PER_MONTH;
}

export type Breakdown = Record<string, number>;

/** The fixed monthly charges of the stack, whatever the load. */
export function fixedMonthly(stack: StackFacts, prices: Prices): Breakdown {
  return {
    'NAT gateway': stack.natGateways * prices.monthly.natGateway,
    'CloudWatch alarms': stack.alarms * prices.monthly.cloudWatchAlarm,
    'Secrets Manager': stack.secrets * prices.monthly.secret,
    'Route53 hosted zones': stack.hostedZones * prices.monthly.hostedZone,
    'KMS keys': stack.kmsKeys * prices.monthly.kmsKey,
  };
}

/** What a function on this stack logs for a request: its lines at the stack's level, its metric line, Lambda's platform lines. */
export function loggedBytes(cost: RequestCost, fn: FunctionFacts, stack: StackFacts, prices: Prices): number {
  const quiet = stack.logLevel === 'WARN' || stack.logLevel === 'ERROR';
  const lines = cost.logBytes - (cost.metricLogBytes ?? 0) - (quiet ? (cost.infoLogBytes ?? 0) : 0);
  return (
    Math.max(0, lines) + (fn.publishesMetrics ? (cost.metricLogBytes ?? 0) : 0) + (stack.platformLogLines ? prices.lambdaPlatformLogBytesPerInvocation : 0)
  );
}

/** The door a caller's requests come through on this stack: none for internal invocations. */
export function doorOf(caller: Caller, stack: StackFacts): AgentDoor | undefined {
  if (caller === 'stream' || caller === 'monitor' || caller === 'workflow') return undefined;
  return caller === 'agent' ? stack.agentDoor : 'cloudfront+rest';
}

/** Every component's monthly charge for the workload on the stack. */
export function monthlyBill(lines: readonly WorkloadLine[], stack: StackFacts, prices: Prices, schedulerInvocationsPerMonth: number): Breakdown {
  const bill: Breakdown = {
    'API Gateway (REST)': 0,
    'API Gateway (HTTP)': 0,
    CloudFront: 0,
    'Data transfer out': 0,
    Lambda: 0,
    DynamoDB: 0,
    S3: 0,
    'CloudWatch Logs': 0,
    'X-Ray': 0,
    'EventBridge Scheduler': schedulerInvocationsPerMonth * prices.perRequest.schedulerInvocation,
    ...fixedMonthly(stack, prices),
  };
  let restRequests = 0;
  /** Invocations Lambda itself samples (Active tracing, no traced caller), per function. */
  const lambdaSampled = new Map<Caller, number>();
  for (const { perMonth, cost, caller } of lines) {
    const door = doorOf(caller, stack);
    const fn = stack.functions[caller];
    let logBytes = loggedBytes(cost, fn, stack, prices);
    if (door === 'cloudfront+rest') {
      restRequests += perMonth;
      bill['API Gateway (REST)']! += perMonth * prices.perRequest.apiGatewayRest;
      // Origin to CloudFront is free; CloudFront to the caller is billed.
      bill.CloudFront! += perMonth * (prices.perRequest.cloudFrontHttps + (cost.responseBytes / GB) * prices.perGb.cloudFrontTransferOut);
      logBytes += prices.apiGatewayAccessLogBytesPerRequest;
    } else if (door === 'http-api') {
      bill['API Gateway (HTTP)']! +=
        perMonth * prices.perRequest.apiGatewayHttp * Math.max(1, Math.ceil(cost.responseBytes / prices.apiGatewayHttpMeteringBytes));
      bill['Data transfer out']! += perMonth * (cost.responseBytes / GB) * prices.perGb.dataTransferOut;
    } else if (door === 'function-url') {
      bill['Data transfer out']! += perMonth * ((cost.gzippedResponseBytes ?? cost.responseBytes) / GB) * prices.perGb.dataTransferOut;
    }
    if (fn.tracing === 'Active' && !(door === 'cloudfront+rest' && stack.restTracing)) lambdaSampled.set(caller, (lambdaSampled.get(caller) ?? 0) + perMonth);
    const gbSecond = fn.architecture === 'arm64' ? prices.perGbSecond.lambdaArm64 : prices.perGbSecond.lambdaX86;
    const seconds = billedLambdaMs(cost, prices, fn.memoryMb) / 1000;
    bill.Lambda! += perMonth * (prices.perRequest.lambdaInvocation + seconds * (fn.memoryMb / 1024) * gbSecond);
    bill.DynamoDB! += perMonth * (cost.readUnits * prices.perRequest.dynamodbReadUnit + cost.writeUnits * prices.perRequest.dynamodbWriteUnit);
    bill.S3! += perMonth * (cost.s3Puts * prices.perRequest.s3Put + cost.s3Gets * prices.perRequest.s3Get);
    bill['CloudWatch Logs']! += perMonth * (logBytes / GB) * prices.perGb.logsIngestion;
  }
  const traces =
    (stack.restTracing ? sampledTraces(restRequests, prices.xraySampling) : 0) +
    [...lambdaSampled.values()].reduce((sum, n) => sum + sampledTraces(n, prices.xraySampling), 0);
  bill['X-Ray'] = traces * prices.perRequest.xrayTrace;
  return bill;
}

/**
 * What the agents' requests of the workload cost through each door, everything else equal: the
 * door's own charges (API Gateway, CloudFront, transfer out, access logs, traces) and the Lambda
 * time, which differs only by the function's size.
 */
export function doorComparison(lines: readonly WorkloadLine[], stack: StackFacts, prices: Prices): Record<AgentDoor, Breakdown> {
  const agentLines = lines.filter((line) => line.caller === 'agent');
  const doors: AgentDoor[] = ['cloudfront+rest', 'http-api', 'function-url'];
  return Object.fromEntries(
    doors.map((door) => {
      const bill = monthlyBill(agentLines, { ...stack, agentDoor: door }, prices, 0);
      const doorCharges = ['API Gateway (REST)', 'API Gateway (HTTP)', 'CloudFront', 'Data transfer out', 'CloudWatch Logs', 'X-Ray', 'Lambda'];
      return [door, Object.fromEntries(doorCharges.map((component) => [component, bill[component] ?? 0]))];
    }),
  ) as Record<AgentDoor, Breakdown>;
}

export const total = (bill: Breakdown) => Object.values(bill).reduce((sum, value) => sum + value, 0);

/**
 * What the "1,000 hosts installed" scenario assumes where the bench cannot measure: how long the
 * real things take (openshift-install, the hosts' installation, the time hosts sit in discovery)
 * and what a host downloads outside the API (bench/cost/install-assumptions.json).
 */
export interface InstallAssumptions {
  clustersPerMonth: number;
  hostsPerCluster: number;
  /** Minutes an agent polls, from boot to its reboot into the installed system (discovery, waiting for the user, writing the disk). */
  agentPollingMinutesPerHost: number;
  /** Minutes from the installer task's end to `installed` with a real release: the workflow's Follow loop runs this long. */
  installMinutes: number;
  /** Minutes the installer task (openshift-install create ignition-configs) is billed, image pull included. */
  installerTaskMinutes: number;
  /** Bytes of the discovery ISO a host downloads. */
  isoBytes: number;
  /** Downloads of the discovery ISO per cluster. */
  isoDownloadsPerCluster: number;
}

/** The installer task's size as the stack defines it (AWS::ECS::TaskDefinition). */
export interface TaskFacts {
  vcpu: number;
  memoryGb: number;
  architecture: 'arm64' | 'x86_64';
}

export interface FargatePrices {
  vcpuHourX86: number;
  gbHourX86: number;
  vcpuHourArm64: number;
  gbHourArm64: number;
  minimumMinutes: number;
}

/** A kind of request measured in one simulated install: what one costs, how often it came, and what sets its count. */
export interface InstallRequestKind {
  label: string;
  caller: Caller;
  cost: RequestCost;
  /** Requests of the kind in the simulated install. */
  measuredCount: number;
  /**
   * `event`: one per thing that happens (a registration, a reply, a stage reported), as measured;
   * `agent-poll`: one per host per poll interval while it polls; `follow`: one per workflow pass
   * while the cluster installs. The last two are counted for real durations, not the simulation's.
   */
  drivenBy: 'event' | 'agent-poll' | 'follow';
}

/** What one simulated install measured outside the Lambda handlers. */
export interface InstallRun {
  kinds: InstallRequestKind[];
  /** States entered by the install workflow's execution, and of them Follow passes. */
  workflowStates: number;
  workflowFollows: number;
  /** S3 requests made outside the functions (the installer task), by price class. */
  taskS3Puts: number;
  taskS3Gets: number;
  /** Objects fetched through pre-signed URLs (hosts' and people's downloads from S3), and their bytes. */
  downloadS3Gets: number;
  downloadBytes: number;
}

/** How many requests of a kind one real install makes: measured for events, from the assumed durations for the time-driven ones. */
export function installRequests(kind: InstallRequestKind, assumptions: InstallAssumptions, pollSeconds: number, installPollSeconds: number): number {
  if (kind.drivenBy === 'agent-poll') return (assumptions.hostsPerCluster * assumptions.agentPollingMinutesPerHost * 60) / pollSeconds;
  if (kind.drivenBy === 'follow') return followPasses(assumptions, installPollSeconds);
  return kind.measuredCount;
}

/** The workflow's Follow passes while a real cluster installs: one every `installPollSeconds`. */
export function followPasses(assumptions: InstallAssumptions, installPollSeconds: number): number {
  return Math.max(1, Math.ceil((assumptions.installMinutes * 60) / installPollSeconds));
}

/**
 * States a real install's workflow enters: the measured execution with its Follow loop (Wait,
 * Follow, Ended: three states a pass) run for `follows` passes instead of the measured ones.
 */
export function workflowTransitions(measuredStates: number, measuredFollows: number, follows: number): number {
  return measuredStates + 3 * (follows - measuredFollows);
}

/** The installer task's charge: its vCPU and memory for the billed minutes (at least Fargate's minimum), at its architecture's rate. */
export function fargateCharge(task: TaskFacts, minutes: number, prices: FargatePrices): number {
  const hours = Math.max(minutes, prices.minimumMinutes) / 60;
  const [vcpu, gb] = task.architecture === 'arm64' ? [prices.vcpuHourArm64, prices.gbHourArm64] : [prices.vcpuHourX86, prices.gbHourX86];
  return hours * (task.vcpu * vcpu + task.memoryGb * gb);
}

/** The charges of one install that are not a function's request: the workflow's transitions, the installer task, its S3 requests, and what is downloaded from S3 directly (the hosts' ISO, measured pre-signed downloads). */
export function installExtras(
  run: InstallRun,
  assumptions: InstallAssumptions,
  task: TaskFacts,
  prices: Prices & { fargate: FargatePrices },
  follows: number,
): Breakdown {
  const downloadGb = (assumptions.isoDownloadsPerCluster * assumptions.isoBytes + run.downloadBytes) / GB;
  return {
    'Step Functions': workflowTransitions(run.workflowStates, run.workflowFollows, follows) * prices.perRequest.stepFunctionsTransition,
    'Fargate (installer task)': fargateCharge(task, assumptions.installerTaskMinutes, prices.fargate),
    S3: run.taskS3Puts * prices.perRequest.s3Put + (run.taskS3Gets + run.downloadS3Gets + assumptions.isoDownloadsPerCluster) * prices.perRequest.s3Get,
    'Data transfer out': downloadGb * prices.perGb.dataTransferOut,
  };
}

/**
 * The month with `clustersPerMonth` installs: the idle service's lines and every install's
 * requests in one bill (X-Ray's sampling depends on the month's rate), plus each install's extras.
 */
export function installedMonthly(
  idleLines: readonly WorkloadLine[],
  run: InstallRun,
  assumptions: InstallAssumptions,
  stack: StackFacts,
  task: TaskFacts,
  prices: Prices & { fargate: FargatePrices },
  timing: { pollSeconds: number; installPollSeconds: number; schedulerInvocationsPerMonth: number },
): { lines: WorkloadLine[]; bill: Breakdown; perInstall: Breakdown } {
  const clusters = assumptions.clustersPerMonth;
  const installLines = run.kinds.map((kind) => ({
    label: kind.label,
    caller: kind.caller,
    cost: kind.cost,
    perMonth: clusters * installRequests(kind, assumptions, timing.pollSeconds, timing.installPollSeconds),
  }));
  const extras = installExtras(run, assumptions, task, prices, followPasses(assumptions, timing.installPollSeconds));
  const idle = monthlyBill(idleLines, stack, prices, timing.schedulerInvocationsPerMonth);
  const bill = monthlyBill([...idleLines, ...installLines], stack, prices, timing.schedulerInvocationsPerMonth);
  for (const [component, value] of Object.entries(extras)) bill[component] = (bill[component] ?? 0) + clusters * value;
  const perInstall = Object.fromEntries(Object.entries(bill).map(([component, value]) => [component, (value - (idle[component] ?? 0)) / clusters]));
  return { lines: installLines, bill, perInstall };
}
