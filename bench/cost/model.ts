/**
 * The monthly bill of a workload, from what each kind of request was measured to ask of each billed
 * component (bench/cost.ts measures; prices.json prices). Pure: no I/O, so the arithmetic is tested
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
  /** Bytes the handler logged (structured log lines), at the deployed log level. */
  logBytes: number;
  /** Bytes of the response body (CloudFront transfer out, for requests through the front door). */
  responseBytes: number;
  /** The handler's own time: wall time less the time it waited for DynamoDB Local and the local S3. */
  handlerMs: number;
}

/** One line of a workload: how many requests of a kind a month, and whether they come through the front door. */
export interface WorkloadLine {
  label: string;
  perMonth: number;
  cost: RequestCost;
  /** Through CloudFront and API Gateway (agent and user calls); otherwise an internal invocation (monitor, stream). */
  viaApi: boolean;
}

/** What the synthesized stack holds that bills by the month, and how its functions are sized. */
export interface StackFacts {
  natGateways: number;
  alarms: number;
  secrets: number;
  hostedZones: number;
  kmsKeys: number;
  lambdaMemoryMb: number;
  lambdaArchitecture: 'arm64' | 'x86_64';
}

export interface Prices {
  perRequest: Record<'apiGatewayRest' | 'cloudFrontHttps' | 'lambdaInvocation' | 'dynamodbReadUnit' | 'dynamodbWriteUnit' | 's3Put' | 's3Get' | 'xrayTrace' | 'schedulerInvocation', number>;
  perGb: Record<'cloudFrontTransferOut' | 'logsIngestion', number>;
  perGbSecond: Record<'lambdaArm64' | 'lambdaX86', number>;
  monthly: Record<'natGateway' | 'cloudWatchAlarm' | 'secret' | 'hostedZone' | 'kmsKey', number>;
  xraySampling: { reservoirPerSecond: number; rate: number };
  assumedAwsLatencyMs: { dynamodbCall: number; s3Call: number };
  lambdaPlatformLogBytesPerInvocation: number;
}

/** AWS bills a month as 730 hours. */
export const SECONDS_PER_MONTH = 730 * 3600;
const GB = 1024 ** 3;

/** A Lambda's billed milliseconds for a request: its own time plus the calls it waits on in AWS, rounded up. */
export function billedLambdaMs(cost: RequestCost, prices: Prices): number {
  const waiting = cost.dynamodbCalls * prices.assumedAwsLatencyMs.dynamodbCall + (cost.s3Puts + cost.s3Gets) * prices.assumedAwsLatencyMs.s3Call;
  return Math.max(1, Math.ceil(cost.handlerMs + waiting));
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

/** Every component's monthly charge for the workload on the stack. */
export function monthlyBill(lines: readonly WorkloadLine[], stack: StackFacts, prices: Prices, schedulerInvocationsPerMonth: number): Breakdown {
  const bill: Breakdown = {
    'API Gateway (REST)': 0,
    CloudFront: 0,
    Lambda: 0,
    DynamoDB: 0,
    S3: 0,
    'CloudWatch Logs': 0,
    'X-Ray': 0,
    'EventBridge Scheduler': schedulerInvocationsPerMonth * prices.perRequest.schedulerInvocation,
    ...fixedMonthly(stack, prices),
  };
  const gbSecond = stack.lambdaArchitecture === 'arm64' ? prices.perGbSecond.lambdaArm64 : prices.perGbSecond.lambdaX86;
  let apiRequests = 0;
  for (const { perMonth, cost, viaApi } of lines) {
    if (viaApi) {
      apiRequests += perMonth;
      bill['API Gateway (REST)']! += perMonth * prices.perRequest.apiGatewayRest;
      bill.CloudFront! += perMonth * (prices.perRequest.cloudFrontHttps + (cost.responseBytes / GB) * prices.perGb.cloudFrontTransferOut);
    }
    const seconds = billedLambdaMs(cost, prices) / 1000;
    bill.Lambda! += perMonth * (prices.perRequest.lambdaInvocation + seconds * (stack.lambdaMemoryMb / 1024) * gbSecond);
    bill.DynamoDB! += perMonth * (cost.readUnits * prices.perRequest.dynamodbReadUnit + cost.writeUnits * prices.perRequest.dynamodbWriteUnit);
    bill.S3! += perMonth * (cost.s3Puts * prices.perRequest.s3Put + cost.s3Gets * prices.perRequest.s3Get);
    bill['CloudWatch Logs']! += perMonth * ((cost.logBytes + prices.lambdaPlatformLogBytesPerInvocation) / GB) * prices.perGb.logsIngestion;
  }
  bill['X-Ray'] = sampledTraces(apiRequests, prices.xraySampling) * prices.perRequest.xrayTrace;
  return bill;
}

export const total = (bill: Breakdown) => Object.values(bill).reduce((sum, value) => sum + value, 0);
