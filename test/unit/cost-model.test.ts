/** The cost bench's arithmetic (bench/cost/model.ts): billed time, X-Ray sampling, and the bill per component. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { billedLambdaMs, fixedMonthly, monthlyBill, sampledTraces, SECONDS_PER_MONTH, total, type Prices, type RequestCost, type StackFacts } from '../../bench/cost/model.js';

const prices = JSON.parse(readFileSync(new URL('../../bench/cost/prices.json', import.meta.url), 'utf8')) as Prices;
const stack: StackFacts = { natGateways: 1, alarms: 10, secrets: 1, hostedZones: 0, kmsKeys: 0, lambdaMemoryMb: 1024, lambdaArchitecture: 'arm64' };
const poll: RequestCost = { measured: 100, readUnits: 2, writeUnits: 1, dynamodbCalls: 3, s3Puts: 0, s3Gets: 0, logBytes: 200, responseBytes: 1_000, handlerMs: 4.2 };

describe('cost model', () => {
  it('bills a Lambda its own time plus the assumed latency of every call it waits on, rounded up to the millisecond', () => {
    expect(billedLambdaMs(poll, prices)).toBe(Math.ceil(4.2 + 3 * prices.assumedAwsLatencyMs.dynamodbCall));
    expect(billedLambdaMs({ ...poll, s3Gets: 2 }, prices)).toBe(Math.ceil(4.2 + 3 * prices.assumedAwsLatencyMs.dynamodbCall + 2 * prices.assumedAwsLatencyMs.s3Call));
    expect(billedLambdaMs({ ...poll, dynamodbCalls: 0, handlerMs: 0 }, prices)).toBe(1);
  });

  it('samples traces as X-Ray’s default rule does: one a second, then 5 % of the rest', () => {
    const oneASecond = SECONDS_PER_MONTH;
    expect(sampledTraces(oneASecond / 2, prices.xraySampling)).toBeCloseTo(oneASecond / 2);
    expect(sampledTraces(21 * oneASecond, prices.xraySampling)).toBeCloseTo(oneASecond * (1 + 20 * 0.05));
  });

  it('charges the fixed resources whatever the load', () => {
    const fixed = fixedMonthly(stack, prices);
    expect(fixed['NAT gateway']).toBe(prices.monthly.natGateway);
    expect(fixed['CloudWatch alarms']).toBeCloseTo(10 * prices.monthly.cloudWatchAlarm);
    expect(total(monthlyBill([], stack, prices, 0))).toBeCloseTo(total(fixed));
  });

  it('charges front-door requests for API Gateway, CloudFront and traces, internal invocations only for what they run', () => {
    const perMonth = 1_000_000;
    const viaApi = monthlyBill([{ label: 'poll', perMonth, cost: poll, viaApi: true }], stack, prices, 0);
    const internal = monthlyBill([{ label: 'poll', perMonth, cost: poll, viaApi: false }], stack, prices, 0);
    expect(viaApi['API Gateway (REST)']).toBeCloseTo(perMonth * prices.perRequest.apiGatewayRest);
    expect(internal['API Gateway (REST)']).toBe(0);
    expect(internal.CloudFront).toBe(0);
    expect(internal['X-Ray']).toBe(0);
    expect(viaApi.DynamoDB).toBeCloseTo(perMonth * (2 * prices.perRequest.dynamodbReadUnit + prices.perRequest.dynamodbWriteUnit));
    expect(viaApi.Lambda).toBeCloseTo(internal.Lambda!);
    const gbSeconds = (perMonth * billedLambdaMs(poll, prices)) / 1000;
    expect(viaApi.Lambda).toBeCloseTo(perMonth * prices.perRequest.lambdaInvocation + gbSeconds * prices.perGbSecond.lambdaArm64);
  });
});
