import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/**
 * A Lambda execution role that may write to its own log group only, instead of the managed
 * AWSLambdaBasicExecutionRole (create any log group, write to any). Active tracing adds the X-Ray
 * statement, which has no resource-level form.
 */
export function lambdaRole(scope: Construct, id: string, logGroup: logs.ILogGroup, tracing: boolean): iam.Role {
  const role = new iam.Role(scope, id, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
  role.addToPolicy(new iam.PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
  if (tracing) {
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing) support no resource-level permissions; no other statement of this role uses "*".',
    });
  }
  return role;
}

/** nodejs22.x: the Node the embedded runtime, the suite and the bundles run on (package.json engines). */
export function acknowledgeRuntime(fn: lambda.Function): void {
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      'Pinned to nodejs22.x, the runtime the handlers are bundled for (esbuild target node22) and tested against locally; moving to nodejs24.x is a deliberate upgrade, not a side effect of a CDK release.',
  });
}
