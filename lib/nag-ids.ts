import { Stack, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * How cdk-nag names a resource inside a finding id, e.g. `<FilesBucket16450113.Arn>`: needed to
 * acknowledge one wildcard finding (AwsSolutions-IAM5[Resource::<…>/orgs/*]) and not the rule.
 */
export function nagArn(construct: IConstruct): string {
  const resource = (construct.node.defaultChild ?? construct) as CfnElement;
  return `<${Stack.of(construct).getLogicalId(resource)}.Arn>`;
}

/** A formatted ARN as cdk-nag prints it: pseudo parameters in angle brackets. */
export function nagFormattedArn(service: string, resource: string): string {
  return `arn:<AWS::Partition>:${service}:<AWS::Region>:<AWS::AccountId>:${resource}`;
}
