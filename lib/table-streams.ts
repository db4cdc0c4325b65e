/**
 * The table's stream feeding the functions of lambdas/functions.json `streams`: one Lambda event
 * source mapping each, with the batching, filter, retry and bisect-on-error settings the local
 * runtime applies too (bin/local/streams-local.ts), partial batch failures reported by the
 * function, an SQS queue as the on-failure destination, and alarms on the iterator age (the
 * stream falling behind) and on records reaching that queue.
 */
import { Duration, type RemovalPolicy, type Stack, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { StreamSpec } from './catalogue.js';

export interface TableStreamsProps {
  table: dynamodb.ITable;
  streams: StreamSpec[];
  functions: Record<string, lambda.Function>;
  removalPolicy: RemovalPolicy;
}

export interface TableStreamMapping {
  name: string;
  function: lambda.Function;
  failures: sqs.Queue;
  /** The age of the newest record delivered: the stream's lag behind the writes. */
  iteratorAge: cloudwatch.Metric;
}

/** A lag past this means judgements arrive a minute late: a person should look. */
export const ITERATOR_AGE_ALARM_MS = 60_000;

export function addTableStreams(stack: Stack, props: TableStreamsProps): TableStreamMapping[] {
  return props.streams.map((spec) => {
    const fn = props.functions[spec.function];
    if (!fn) throw new Error(`stream ${spec.name} names function ${spec.function}, which lambdas/functions.json does not define`);
    const failures = new sqs.Queue(stack, `${spec.function}StreamFailures`, {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(failures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is the on-failure destination of the stream mapping: it is the dead-letter queue; nothing consumes it but a person, alerted by its alarm.',
    });
    fn.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: spec.batchSize,
        maxBatchingWindow: Duration.seconds(spec.maximumBatchingWindowSeconds ?? 0),
        retryAttempts: spec.maximumRetryAttempts,
        bisectBatchOnError: spec.bisectBatchOnFunctionError,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(failures),
        ...(spec.filter ? { filters: [lambda.FilterCriteria.filter(spec.filter)] } : {}),
      }),
    );
    const iteratorAge = fn.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' });
    return { name: spec.name, function: fn, failures, iteratorAge };
  });
}
