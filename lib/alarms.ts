import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { ITERATOR_AGE_ALARM_MS, type TableStreamMapping } from './table-streams.js';

export interface ServiceAlarmsProps {
  functions: Record<string, lambda.IFunction>;
  stateMachines: Record<string, sfn.IStateMachine>;
  api: apigateway.RestApi;
  /** The agents' function, answering through its function URL. */
  agentFunction?: lambda.IFunction;
  table: dynamodb.ITable;
  /** The stream's event source mappings: their lag and the records they gave up on. */
  streams?: TableStreamMapping[];
  email?: string;
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * Alarms on what needs a person: function errors and throttles, API 5xx, table throttling and
 * failed or timed-out workflows. All notify one topic; an e-mail subscription is optional.
 */
export class ServiceAlarms extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'assisted-cloud alarms', enforceSSL: true });
    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
    const notify = new actions.SnsAction(this.topic);

    const alarm = (alarmId: string, metric: cloudwatch.IMetric, description: string, threshold = 1) => {
      const created = new cloudwatch.Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(notify);
      this.alarms.push(created);
    };

    for (const [name, fn] of Object.entries(props.functions)) {
      alarm(`${name}Errors`, fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }), `${name}: invocations failed`);
      alarm(`${name}Throttles`, fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }), `${name}: invocations throttled`);
    }
    for (const [name, machine] of Object.entries(props.stateMachines)) {
      alarm(`${name}Failed`, machine.metricFailed({ period: FIVE_MINUTES, statistic: 'Sum' }), `workflow ${name}: executions failed`);
      alarm(`${name}TimedOut`, machine.metricTimedOut({ period: FIVE_MINUTES, statistic: 'Sum' }), `workflow ${name}: executions timed out`);
    }
    for (const stream of props.streams ?? []) {
      alarm(
        `${stream.name}IteratorAge`,
        stream.iteratorAge,
        `stream ${stream.name}: ${stream.function.node.id} is more than a minute behind the table's changes`,
        ITERATOR_AGE_ALARM_MS,
      );
      alarm(
        `${stream.name}Failures`,
        stream.failures.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' }),
        `stream ${stream.name}: records given up on (see the failure queue)`,
      );
    }
    alarm('Api5xx', props.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }), 'API: 5xx answers', 5);
    if (props.agentFunction) {
      // What Api5xx watches for people's requests: the function's own 5xx answers (handled errors are no Lambda Errors).
      const url5xx = new cloudwatch.Metric({
        namespace: 'AWS/Lambda',
        metricName: 'Url5xxCount',
        dimensionsMap: { FunctionName: props.agentFunction.functionName },
        period: FIVE_MINUTES,
        statistic: 'Sum',
      });
      alarm('AgentApi5xx', url5xx, "agents' API (function URL): 5xx answers", 5);
    }
    for (const event of ['ReadThrottleEvents', 'WriteThrottleEvents']) {
      alarm(`Table${event}`, props.table.metric(event, { period: FIVE_MINUTES, statistic: 'Sum' }), `table: ${event}`);
    }
  }
}
