/**
 * What the bill depends on in the staging stack as `cdk synth` writes it (bundling skipped): the
 * fixed charges, the agents' door, each caller's function, the installer's task. Read by
 * bench/cost.ts, which prices its measured requests on these facts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { AGENT_API_FUNCTION, AssistedStack, REST_API_FUNCTION } from '../../lib/assisted-stack.js';
import { stageConfigFromContext } from '../../lib/stage-config.js';
import type { Caller, FunctionFacts, StackFacts, TaskFacts } from './model.js';

type Resource = { Type: string; Properties?: Record<string, any> };

/**
 * The fixed charges, the agents' door and each caller's function as the staging stack has them
 * (`cdk synth`, bundling skipped): NAT gateways, alarms, secrets, zones and keys counted; the door
 * is a function URL when the stack has one on the agents' function; sizes, tracing, log levels and
 * metric publishing read from the functions' own properties.
 */
export function stackFacts(): StackFacts {
  const outdir = mkdtempSync(path.join(tmpdir(), 'assisted-cost-synth-'));
  try {
    const context: Record<string, unknown> = { stage: 'staging', alarmEmail: 'ops@example.com', 'aws:cdk:bundling-stacks': [] };
    const app = new App({ outdir, context });
    const stack = new AssistedStack(app, 'AssistedCloud-staging', { config: stageConfigFromContext((key) => context[key]) });
    const resources = (app.synth().getStackArtifact(stack.artifactId).template as { Resources: Record<string, Resource> }).Resources;
    const all = Object.entries(resources);
    const count = (type: string) => all.filter(([, resource]) => resource.Type === type).length;
    const functionNamed = (name: string) =>
      all.find(
        ([id, resource]) => resource.Type === 'AWS::Lambda::Function' && id.startsWith(`${name}Function`) && !id.startsWith(`${name}FunctionFunctionUrl`),
      );
    const facts = (name: string): FunctionFacts & { logging: Record<string, string> } => {
      const found = functionNamed(name);
      if (!found) throw new Error(`the staging stack has no function ${name}`);
      const props = found[1].Properties!;
      return {
        memoryMb: Number(props.MemorySize ?? 128),
        architecture: (props.Architectures?.[0] ?? 'x86_64') as FunctionFacts['architecture'],
        tracing: props.TracingConfig?.Mode === 'Active' ? 'Active' : 'PassThrough',
        publishesMetrics: props.Environment?.Variables?.POWERTOOLS_METRICS_DISABLED !== 'true',
        logging: { ...props.LoggingConfig, powertools: props.Environment?.Variables?.POWERTOOLS_LOG_LEVEL },
      };
    };
    const agentUrl = all.some(
      ([, resource]) =>
        resource.Type === 'AWS::Lambda::Url' && JSON.stringify(resource.Properties?.TargetFunctionArn ?? '').includes(`"${AGENT_API_FUNCTION}Function`),
    );
    const people = facts(REST_API_FUNCTION);
    const functions: Record<Caller, FunctionFacts> = {
      agent: agentUrl ? facts(AGENT_API_FUNCTION) : people,
      user: people,
      stream: facts('HostChanges'),
      monitor: facts('HostMonitor'),
      workflow: facts('InstallFollow'),
    };
    // The level Powertools logs at is the stricter of its own and Lambda's filter (Lambda drops what is below its level).
    const levels = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
    const levelOf = (fn: { logging: Record<string, string> }) =>
      levels[Math.max(levels.indexOf((fn.logging.powertools ?? 'INFO') as never), levels.indexOf((fn.logging.ApplicationLogLevel ?? 'DEBUG') as never))] ??
      'INFO';
    const systemQuiet = (fn: { logging: Record<string, string> }) =>
      fn.logging.LogFormat === 'JSON' && ['WARN', 'ERROR'].includes(fn.logging.SystemLogLevel ?? '');
    const agents = functions.agent as ReturnType<typeof facts>;
    const stage = all.find(([, resource]) => resource.Type === 'AWS::ApiGateway::Stage')?.[1];
    return {
      natGateways: count('AWS::EC2::NatGateway'),
      alarms: count('AWS::CloudWatch::Alarm'),
      secrets: count('AWS::SecretsManager::Secret'),
      hostedZones: count('AWS::Route53::HostedZone'),
      kmsKeys: count('AWS::KMS::Key'),
      agentDoor: agentUrl ? 'function-url' : 'cloudfront+rest',
      restTracing: stage?.Properties?.TracingEnabled === true,
      logLevel: levelOf(agents),
      platformLogLines: !systemQuiet(agents),
      installerTask: installerTaskOf(all.find(([, resource]) => resource.Type === 'AWS::ECS::TaskDefinition')?.[1]),
      functions: Object.fromEntries(
        Object.entries(functions).map(([caller, { memoryMb, architecture, tracing, publishesMetrics }]) => [
          caller,
          { memoryMb, architecture, tracing, publishesMetrics },
        ]),
      ) as Record<Caller, FunctionFacts>,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The installer task's vCPU, memory and architecture from its task definition (Cpu in units of 1/1,024 vCPU, Memory in MiB). */
function installerTaskOf(definition: Resource | undefined): TaskFacts | undefined {
  if (!definition?.Properties) return undefined;
  const props = definition.Properties;
  return {
    vcpu: Number(props.Cpu) / 1024,
    memoryGb: Number(props.Memory) / 1024,
    architecture: props.RuntimePlatform?.CpuArchitecture === 'ARM64' ? 'arm64' : 'x86_64',
  };
}

/**
 * The staging stack before #21's cuts (5383bbb): a NAT gateway, 29 alarms, agents through CloudFront
 * and the REST API, every function 1,024 MB, actively traced, publishing a metric line per
 * invocation, at Powertools' default level (INFO) with Lambda's START/END/REPORT lines. Priced on
 * the same measurements, for the before-and-after lines.
 */
export function stackBefore21(now: StackFacts): StackFacts {
  const fn: FunctionFacts = { memoryMb: 1024, architecture: 'arm64', tracing: 'Active', publishesMetrics: true };
  return {
    ...now,
    natGateways: 1,
    alarms: 29,
    agentDoor: 'cloudfront+rest',
    restTracing: true,
    logLevel: 'INFO',
    platformLogLines: true,
    functions: { agent: fn, user: fn, stream: fn, monitor: fn, workflow: fn },
  };
}
