/** The workflows: Step Functions state machines (statemachines/*.asl.json) and the schedules that run the monitors. */
import { join } from 'node:path';
import { ArnFormat, type CfnElement, type RemovalPolicy, type Stack, Validations } from 'aws-cdk-lib';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { PROJECT_ROOT, type ScheduleSpec, type StateMachineSpec } from './catalogue.js';
import type { InstallerNetwork, InstallerTask } from './installer-task.js';
import { nagFormattedArn } from './nag-ids.js';

/** Placeholder forms of lambdas/functions.json state machine substitutions that name a container. */
const CONTAINER_SUBSTITUTION = /^(container|containerCluster|containerSubnets|containerSecurityGroups|containerAssignPublicIp):(.+)$/;

export interface StateMachineNames {
  name(machine: string): string;
  arn(machine: string, resource?: 'stateMachine' | 'execution'): string;
}

/**
 * State machine names and ARNs, known before the machines exist. Functions carry STATE_MACHINES and
 * the machines invoke functions: naming the machines and formatting their ARNs (instead of Ref)
 * avoids a dependency cycle in CloudFormation.
 */
export function stateMachineNames(stack: Stack): StateMachineNames {
  const name = (machine: string) => `${stack.stackName}-${machine}`;
  const arn = (machine: string, resource: 'stateMachine' | 'execution' = 'stateMachine') =>
    stack.formatArn({
      service: 'states',
      resource,
      resourceName: resource === 'execution' ? `${name(machine)}:*` : name(machine),
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  return { name, arn };
}

export interface StateMachinesProps {
  specs: StateMachineSpec[];
  names: StateMachineNames;
  functions: Record<string, lambda.Function>;
  containers: Record<string, InstallerTask>;
  network?: InstallerNetwork;
  cluster?: ecs.Cluster;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
}

/** One state machine per spec, with its placeholders replaced and only the grants its states need. */
export function addStateMachines(stack: Stack, props: StateMachinesProps): Record<string, sfn.StateMachine> {
  const { network, cluster, logRetention, removalPolicy } = props;
  const stateMachines: Record<string, sfn.StateMachine> = {};
  for (const spec of props.specs) {
    const invoked: lambda.IFunction[] = [];
    const started: InstallerTask[] = [];
    const substitutions: Record<string, string> = {};
    for (const [placeholder, target] of Object.entries(spec.substitutions ?? {})) {
      const containerTarget = CONTAINER_SUBSTITUTION.exec(target);
      if (!containerTarget) {
        const fn = props.functions[target];
        if (!fn) throw new Error(`state machine ${spec.name}: no function ${target} in lambdas/functions.json`);
        invoked.push(fn);
        substitutions[placeholder] = fn.functionArn;
        continue;
      }
      const [, form, name] = containerTarget;
      const task = props.containers[name!];
      if (!task || !network || !cluster) throw new Error(`state machine ${spec.name}: no container ${name} in lambdas/functions.json`);
      if (form === 'container') {
        started.push(task);
        substitutions[placeholder] = task.taskDefinition.taskDefinitionArn;
      } else if (form === 'containerCluster') {
        substitutions[placeholder] = cluster.clusterArn;
      } else if (form === 'containerSubnets') {
        substitutions[placeholder] = stack.toJsonString(network.subnets.map((subnet) => subnet.subnetId));
      } else if (form === 'containerAssignPublicIp') {
        substitutions[placeholder] = network.assignPublicIp ? 'ENABLED' : 'DISABLED';
      } else {
        substitutions[placeholder] = stack.toJsonString([network.securityGroup.securityGroupId]);
      }
    }

    const machine = new sfn.StateMachine(stack, `${pascal(spec.name)}StateMachine`, {
      stateMachineName: props.names.name(spec.name),
      definitionBody: sfn.DefinitionBody.fromFile(join(PROJECT_ROOT, spec.definition)),
      definitionSubstitutions: substitutions,
      tracingEnabled: true,
      logs: {
        destination: new logs.LogGroup(stack, `${pascal(spec.name)}StateMachineLogs`, { retention: logRetention, removalPolicy }),
        level: sfn.LogLevel.ALL,
        // States' inputs and outputs carry install-config.yaml paths and ids, never logged in full.
        includeExecutionData: false,
      },
      removalPolicy,
    });
    if (invoked.length > 0) {
      machine.addToRolePolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: invoked.map((fn) => fn.functionArn) }));
    }
    for (const task of started) allowRunTaskSync(stack, machine, task, cluster!);
    stateMachines[spec.name] = machine;
  }
  return stateMachines;
}

/**
 * What `arn:aws:states:::ecs:runTask.sync` needs: run this task definition, pass its two roles to
 * ECS, watch and stop its tasks, and the managed EventBridge rule Step Functions uses to learn
 * that a task stopped.
 */
function allowRunTaskSync(stack: Stack, machine: sfn.StateMachine, task: InstallerTask, cluster: ecs.ICluster): void {
  const taskDefinition = task.taskDefinition;
  machine.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['ecs:RunTask'],
      resources: [taskDefinition.taskDefinitionArn],
      conditions: { ArnEquals: { 'ecs:cluster': cluster.clusterArn } },
    }),
  );
  machine.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['ecs:StopTask', 'ecs:DescribeTasks'],
      resources: [stack.formatArn({ service: 'ecs', resource: 'task', resourceName: `${cluster.clusterName}/*` })],
    }),
  );
  Validations.of(machine.role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagFormattedArn('ecs', `task/<${stack.getLogicalId(cluster.node.defaultChild as CfnElement)}>/*`)}]`,
    reason:
      'ecs:DescribeTasks and ecs:StopTask for runTask.sync: task ids are only known once the task runs; the grant covers tasks of the installer cluster only.',
  });
  machine.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['iam:PassRole'],
      resources: [taskDefinition.taskRole.roleArn, taskDefinition.obtainExecutionRole().roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
    }),
  );
  machine.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
      resources: [stack.formatArn({ service: 'events', resource: 'rule', resourceName: 'StepFunctionsGetEventsForECSTaskRule' })],
    }),
  );
}

/** The monitors: EventBridge Scheduler invokes the same handlers the local timers do. */
export function addSchedules(stack: Stack, schedules: ScheduleSpec[], functions: Record<string, lambda.Function>): void {
  if (schedules.length === 0) return;
  const schedulerRole = new iam.Role(stack, 'SchedulerRole', { assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com') });
  for (const schedule of schedules) {
    const target = functions[schedule.function];
    if (!target) throw new Error(`schedule ${schedule.name} names unknown function ${schedule.function}`);
    // The function itself, not its versions (grantInvoke would add <arn>:*).
    schedulerRole.addToPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [target.functionArn] }));
    new scheduler.CfnSchedule(stack, `Schedule-${schedule.name}`, {
      name: `${stack.stackName}-${schedule.name}`,
      scheduleExpression: schedule.expression,
      flexibleTimeWindow: { mode: 'OFF' },
      target: { arn: target.functionArn, roleArn: schedulerRole.roleArn, retryPolicy: { maximumRetryAttempts: 0 } },
    });
  }
}

function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
