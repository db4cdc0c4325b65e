/** The cost bench's arithmetic (bench/cost/model.ts): billed time, X-Ray sampling, the doors, and the bill per component. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  billedLambdaMs,
  doorComparison,
  fargateCharge,
  fixedMonthly,
  followPasses,
  installedMonthly,
  installExtras,
  installRequests,
  loggedBytes,
  monthlyBill,
  sampledTraces,
  SECONDS_PER_MONTH,
  total,
  workflowTransitions,
  type FunctionFacts,
  type InstallAssumptions,
  type InstallRequestKind,
  type InstallRun,
  type Prices,
  type RequestCost,
  type StackFacts,
  type TaskFacts,
} from '../../bench/cost/model.js';

const prices = JSON.parse(readFileSync(new URL('../../bench/cost/prices.json', import.meta.url), 'utf8')) as Prices;
const fn = (memoryMb: number, tracing: FunctionFacts['tracing'] = 'Active', publishesMetrics = true): FunctionFacts => ({
  memoryMb,
  architecture: 'arm64',
  tracing,
  publishesMetrics,
});
/** The stack before #21: agents through CloudFront and REST, every function 1,024 MB, traced, at INFO. */
const before: StackFacts = {
  natGateways: 1,
  alarms: 10,
  secrets: 1,
  hostedZones: 0,
  kmsKeys: 0,
  agentDoor: 'cloudfront+rest',
  restTracing: true,
  logLevel: 'INFO',
  platformLogLines: true,
  functions: { agent: fn(1024), user: fn(1024), stream: fn(1024), monitor: fn(1024), workflow: fn(1024) },
};
/** After: agents on their function URL (512 MB, not traced, no metric lines), WARN, no platform lines. */
const after: StackFacts = {
  ...before,
  natGateways: 0,
  agentDoor: 'function-url',
  logLevel: 'WARN',
  platformLogLines: false,
  functions: { agent: fn(512, 'PassThrough', false), user: fn(1024), stream: fn(512, 'PassThrough', false), monitor: fn(512), workflow: fn(512) },
};
const poll: RequestCost = {
  measured: 100,
  readUnits: 2,
  writeUnits: 1,
  dynamodbCalls: 3,
  s3Puts: 0,
  s3Gets: 0,
  logBytes: 200,
  metricLogBytes: 200,
  responseBytes: 40_000,
  gzippedResponseBytes: 4_000,
  handlerMs: 4.2,
};
const perMonth = 1_000_000;

describe('cost model', () => {
  it('bills a Lambda its own time, slowed below a full vCPU, plus the assumed latency of every call it waits on, rounded up', () => {
    const waits = 3 * prices.assumedAwsLatencyMs.dynamodbCall;
    expect(billedLambdaMs(poll, prices)).toBe(Math.ceil(4.2 + waits));
    expect(billedLambdaMs(poll, prices, 4096)).toBe(Math.ceil(4.2 + waits));
    expect(billedLambdaMs(poll, prices, 512)).toBe(Math.ceil(4.2 * (prices.lambdaFullVcpuMemoryMb / 512) + waits));
    expect(billedLambdaMs({ ...poll, s3Gets: 2 }, prices)).toBe(Math.ceil(4.2 + waits + 2 * prices.assumedAwsLatencyMs.s3Call));
    expect(billedLambdaMs({ ...poll, dynamodbCalls: 0, handlerMs: 0 }, prices)).toBe(1);
  });

  it('samples traces as X-Ray’s default rule does: one a second, then 5 % of the rest', () => {
    const oneASecond = SECONDS_PER_MONTH;
    expect(sampledTraces(oneASecond / 2, prices.xraySampling)).toBeCloseTo(oneASecond / 2);
    expect(sampledTraces(21 * oneASecond, prices.xraySampling)).toBeCloseTo(oneASecond * (1 + 20 * 0.05));
  });

  it('charges the fixed resources whatever the load', () => {
    const fixed = fixedMonthly(before, prices);
    expect(fixed['NAT gateway']).toBe(prices.monthly.natGateway);
    expect(fixedMonthly(after, prices)['NAT gateway']).toBe(0);
    expect(fixed['CloudWatch alarms']).toBeCloseTo(10 * prices.monthly.cloudWatchAlarm);
    expect(total(monthlyBill([], before, prices, 0))).toBeCloseTo(total(fixed));
  });

  it('charges agents through CloudFront and REST for both, their transfer at CloudFront’s rate, an access log line, and traces', () => {
    const bill = monthlyBill([{ label: 'poll', perMonth, cost: poll, caller: 'agent' }], before, prices, 0);
    expect(bill['API Gateway (REST)']).toBeCloseTo(perMonth * prices.perRequest.apiGatewayRest);
    expect(bill.CloudFront).toBeCloseTo(perMonth * (prices.perRequest.cloudFrontHttps + (40_000 / 1024 ** 3) * prices.perGb.cloudFrontTransferOut));
    expect(bill['Data transfer out']).toBe(0);
    const logBytes = 200 + prices.lambdaPlatformLogBytesPerInvocation + prices.apiGatewayAccessLogBytesPerRequest;
    expect(bill['CloudWatch Logs']).toBeCloseTo(perMonth * (logBytes / 1024 ** 3) * prices.perGb.logsIngestion);
    // API Gateway samples; the function behind it follows its decision (one trace, not two).
    expect(bill['X-Ray']).toBeCloseTo(sampledTraces(perMonth, prices.xraySampling) * prices.perRequest.xrayTrace);
    const gbSeconds = (perMonth * billedLambdaMs(poll, prices, 1024)) / 1000;
    expect(bill.Lambda).toBeCloseTo(perMonth * prices.perRequest.lambdaInvocation + gbSeconds * prices.perGbSecond.lambdaArm64);
  });

  it('charges agents on their function URL only the invocation and the gzipped answer’s transfer; nothing is traced or logged per poll', () => {
    const bill = monthlyBill([{ label: 'poll', perMonth, cost: poll, caller: 'agent' }], after, prices, 0);
    expect(bill['API Gateway (REST)']).toBe(0);
    expect(bill.CloudFront).toBe(0);
    expect(bill['Data transfer out']).toBeCloseTo(perMonth * (4_000 / 1024 ** 3) * prices.perGb.dataTransferOut);
    expect(bill['CloudWatch Logs']).toBe(0);
    expect(bill['X-Ray']).toBe(0);
    const gbSeconds = (perMonth * billedLambdaMs(poll, prices, 512) * 0.5) / 1000;
    expect(bill.Lambda).toBeCloseTo(perMonth * prices.perRequest.lambdaInvocation + gbSeconds * prices.perGbSecond.lambdaArm64);
    expect(bill.DynamoDB).toBeCloseTo(perMonth * (2 * prices.perRequest.dynamodbReadUnit + prices.perRequest.dynamodbWriteUnit));
  });

  it('keeps people on CloudFront and REST whatever the agents’ door; internal invocations pay only what they run, traced by Lambda’s own rule when Active', () => {
    const user = monthlyBill([{ label: 'call', perMonth, cost: poll, caller: 'user' }], after, prices, 0);
    expect(user['API Gateway (REST)']).toBeCloseTo(perMonth * prices.perRequest.apiGatewayRest);
    const monitor = monthlyBill([{ label: 'pass', perMonth: 43_800, cost: poll, caller: 'monitor' }], after, prices, 0);
    expect(monitor['API Gateway (REST)']! + monitor.CloudFront! + monitor['Data transfer out']!).toBe(0);
    expect(monitor['X-Ray']).toBeCloseTo(43_800 * prices.perRequest.xrayTrace);
    // The monitor publishes its metric line; the stream does not, and passes traces through.
    expect(monitor['CloudWatch Logs']).toBeCloseTo(43_800 * (200 / 1024 ** 3) * prices.perGb.logsIngestion);
    const stream = monthlyBill([{ label: 'batch', perMonth, cost: poll, caller: 'stream' }], after, prices, 0);
    expect([stream['X-Ray'], stream['CloudWatch Logs']]).toEqual([0, 0]);
  });

  it('logs a request’s INFO lines only below WARN, its metric line only where metrics are published, Lambda’s lines only at system level INFO', () => {
    const batch: RequestCost = { ...poll, logBytes: 500, infoLogBytes: 300, metricLogBytes: 200 };
    expect(loggedBytes(batch, fn(1024), before, prices)).toBe(500 + prices.lambdaPlatformLogBytesPerInvocation);
    expect(loggedBytes(batch, fn(1024), after, prices)).toBe(200);
    expect(loggedBytes(batch, fn(512, 'PassThrough', false), after, prices)).toBe(0);
    expect(loggedBytes({ ...batch, logBytes: 600 }, fn(512, 'PassThrough', false), after, prices)).toBe(100);
  });

  it('prices an HTTP API per started 512 KB, with the answer’s transfer uncompressed', () => {
    const doors = doorComparison(
      [
        { label: 'poll', perMonth, cost: poll, caller: 'agent' },
        { label: 'pass', perMonth: 1, cost: poll, caller: 'monitor' },
      ],
      after,
      prices,
    );
    expect(doors['http-api']!['API Gateway (HTTP)']).toBeCloseTo(perMonth * prices.perRequest.apiGatewayHttp);
    expect(doors['http-api']!['Data transfer out']).toBeCloseTo(perMonth * (40_000 / 1024 ** 3) * prices.perGb.dataTransferOut);
    const large = doorComparison([{ label: 'big', perMonth, cost: { ...poll, responseBytes: 600 * 1024 }, caller: 'agent' }], after, prices);
    expect(large['http-api']!['API Gateway (HTTP)']).toBeCloseTo(2 * perMonth * prices.perRequest.apiGatewayHttp);
    expect(total(doors['function-url']!)).toBeLessThan(total(doors['http-api']!));
    expect(total(doors['http-api']!)).toBeLessThan(total(doors['cloudfront+rest']!));
  });
});

describe('the installed scenario', () => {
  const assumptions: InstallAssumptions = {
    clustersPerMonth: 333,
    hostsPerCluster: 3,
    agentPollingMinutesPerHost: 45,
    installMinutes: 60,
    installerTaskMinutes: 5,
    isoBytes: 1_200_000_000,
    isoDownloadsPerCluster: 3,
  };
  const fargate = { vcpuHourX86: 0.04048, gbHourX86: 0.004445, vcpuHourArm64: 0.03238, gbHourArm64: 0.00356, minimumMinutes: 1 };
  const withFargate = { ...prices, fargate };
  const kind = (
    label: string,
    drivenBy: InstallRequestKind['drivenBy'],
    measuredCount: number,
    caller: InstallRequestKind['caller'] = 'agent',
  ): InstallRequestKind => ({ label, caller, cost: poll, measuredCount, drivenBy });
  const run: InstallRun = {
    kinds: [kind('poll', 'agent-poll', 52), kind('reply inventory', 'event', 3), kind('workflow InstallFollow', 'follow', 12, 'workflow')],
    workflowStates: 41,
    workflowFollows: 12,
    taskS3Puts: 8,
    taskS3Gets: 1,
    downloadS3Gets: 0,
    downloadBytes: 0,
  };

  it('counts events as measured, polls and workflow passes for the assumed real durations', () => {
    expect(installRequests(run.kinds[1]!, assumptions, 60, 30)).toBe(3);
    expect(installRequests(run.kinds[0]!, assumptions, 60, 30)).toBe(3 * 45);
    expect(installRequests(run.kinds[2]!, assumptions, 60, 30)).toBe(120);
    expect(followPasses({ ...assumptions, installMinutes: 0 }, 30)).toBe(1);
    // The measured 12 passes replaced by 120: three states (Wait, Follow, Ended) per pass.
    expect(workflowTransitions(41, 12, 120)).toBe(41 + 3 * 108);
  });

  it('bills the installer task its vCPU and memory for the billed minutes, at least Fargate’s minimum, at its architecture’s rate', () => {
    const x86: TaskFacts = { vcpu: 1, memoryGb: 4, architecture: 'x86_64' };
    expect(fargateCharge(x86, 30, fargate)).toBeCloseTo(0.5 * (0.04048 + 4 * 0.004445));
    expect(fargateCharge(x86, 0.1, fargate)).toBeCloseTo((1 / 60) * (0.04048 + 4 * 0.004445));
    expect(fargateCharge({ ...x86, architecture: 'arm64' }, 60, fargate)).toBeCloseTo(0.03238 + 4 * 0.00356);
  });

  it('prices an install’s extras: transitions, the task, its S3 requests and the ISO downloads out of S3', () => {
    const extras = installExtras(run, assumptions, { vcpu: 1, memoryGb: 4, architecture: 'x86_64' }, withFargate, 120);
    expect(extras['Step Functions']).toBeCloseTo((41 + 3 * 108) * prices.perRequest.stepFunctionsTransition);
    expect(extras.S3).toBeCloseTo(8 * prices.perRequest.s3Put + (1 + 3) * prices.perRequest.s3Get);
    expect(extras['Data transfer out']).toBeCloseTo(((3 * 1_200_000_000) / 1024 ** 3) * prices.perGb.dataTransferOut);
  });

  it('adds every install to the idle month, and one install is the difference over the clusters', () => {
    const idleLines = [{ label: 'monitor passes', perMonth: 43_800, cost: poll, caller: 'monitor' as const }];
    const task: TaskFacts = { vcpu: 1, memoryGb: 4, architecture: 'x86_64' };
    const timing = { pollSeconds: 60, installPollSeconds: 30, schedulerInvocationsPerMonth: 43_800 };
    const { bill, perInstall, lines } = installedMonthly(idleLines, run, assumptions, after, task, withFargate, timing);
    const idle = monthlyBill(idleLines, after, prices, 43_800);
    expect(lines.find((line) => line.label === 'poll')!.perMonth).toBe(333 * 135);
    expect(total(bill)).toBeCloseTo(total(idle) + 333 * total(perInstall), 6);
    expect(perInstall['Fargate (installer task)']).toBeCloseTo(fargateCharge(task, 5, fargate));
    expect(perInstall['NAT gateway']).toBe(0);
    expect(perInstall.DynamoDB).toBeCloseTo((135 + 3 + 120) * (2 * prices.perRequest.dynamodbReadUnit + prices.perRequest.dynamodbWriteUnit));
  });
});
