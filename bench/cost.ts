/**
 * `npm run bench -- cost` (issue #21): what the service would cost a month on AWS, from what its
 * requests were measured to ask of each billed component, at the list prices of bench/cost/prices.json.
 *
 * The Api and HostChanges handlers run in this thread, each invocation in an AsyncLocalStorage
 * context that counts what it asked for: DynamoDB read and write units (ReturnConsumedCapacity
 * TOTAL, which DynamoDB Local computes as DynamoDB does), S3 requests by price class, bytes logged
 * at INFO (and which of them are INFO lines or Powertools' metric line, which the stack may drop),
 * response bytes (as sent, and gzipped as the agents' function URL sends them), and the handler's
 * own time (wall time less its waits on DynamoDB Local and the local S3, measured one request at a
 * time). A Lambda's billed time is that own time, stretched by the function's CPU share below
 * 1,769 MB, plus each call's assumed AWS latency (prices.json).
 *
 * Measured at LIFECYCLE_HOSTS (1,000) hosts in one cluster:
 * - registration, first poll, inventory and the other step replies of COST_SAMPLE_HOSTS (100) new hosts;
 * - a host-monitor pass with no host active, and one over the 1,000 hosts once they have settled
 *   (the passes while the cluster converges, up to COST_CONVERGING_PASSES (5), are priced apart);
 * - a steady hour of COST_STEADY_HOSTS (50) further hosts in clusters of COST_CLUSTER_HOSTS (3),
 *   after COST_WARMUP_HOURS (1) unmeasured hours of the same,
 *   each reporting a full mesh (so they are known), on a stepped service clock: each polls when
 *   the service tells it to, and answers the steps it is handed as upstream's agent does (a reply
 *   is posted only when its output changed: connectivity reports, whose round-trip times move;
 *   inventory, NTP sources, domain resolutions and free addresses come back unchanged and are not
 *   posted); the table stream's HostChanges invocations meanwhile are counted too.
 * The fixed monthly charges come from the synthesized staging stack (NAT gateways, alarms, secrets,
 * hosted zones, KMS keys), and from its template what bills per request: the agents' door (function
 * URL, or CloudFront and REST), each function's memory, architecture, tracing and metric lines, the
 * log levels (stackFacts). The same requests are also priced on the stack before #21, and the
 * agents' requests through each door.
 *
 * Prints a table per scenario, writes the result as JSON (COST_OUT, default cost.json in the
 * system's temp directory), with COST_WRITE_DOCS=1 regenerates docs/deploy.md's cost section,
 * and ends with the lines `idle: $<n>/month`, `1000 connected hosts: $<n>/month` and
 * `1000 hosts installed: $<n>/month` (333 three-node clusters: one install measured with SIMULATED hosts, see
 * measureInstall, priced for the durations of bench/cost/install-assumptions.json).
 *
 * This file prices and reports; the measuring is in bench/cost/: meter.ts (the per-invocation
 * counts), measure-connected.ts (the discovery, monitor passes and steady hours),
 * measure-install.ts (the install); the arithmetic is model.ts, the stack's facts stack-facts.ts.
 */
import { replaceDocsSection } from './docs-sections.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/assisted-stack.js';
import {
  doorComparison,
  followPasses,
  installedMonthly,
  installRequests,
  monthlyBill,
  SECONDS_PER_MONTH,
  total,
  workflowTransitions,
  type Breakdown,
  type Caller,
  type FargatePrices,
  type InstallAssumptions,
  type InstallRequestKind,
  type Prices,
  type RequestCost,
  type StackFacts,
  type TaskFacts,
  type WorkloadLine,
} from './cost/model.js';
import { stackBefore21, stackFacts } from './cost/stack-facts.js';
import { type Measurements, measureConnected } from './cost/measure-connected.js';
import { type InstallMeasurement, measureInstall } from './cost/measure-install.js';

const dollars = (value: number) => (value >= 100 ? `$${value.toFixed(0)}` : value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(3)}`);

function printCosts(costs: Record<string, RequestCost>, prices: Prices): void {
  console.log(
    `\n${'per request (measured)'.padEnd(38)}${'n'.padStart(6)}${'RRU'.padStart(8)}${'WRU'.padStart(8)}${'calls'.padStart(7)}${'S3'.padStart(5)}${'log B'.padStart(8)}${'resp B'.padStart(8)}${'gzip B'.padStart(8)}${'own ms'.padStart(8)}${'billed ms'.padStart(10)}`,
  );
  for (const [kind, cost] of Object.entries(costs)) {
    const waiting = cost.dynamodbCalls * prices.assumedAwsLatencyMs.dynamodbCall + (cost.s3Puts + cost.s3Gets) * prices.assumedAwsLatencyMs.s3Call;
    console.log(
      `${kind.padEnd(38)}${String(cost.measured).padStart(6)}${cost.readUnits.toFixed(1).padStart(8)}${cost.writeUnits.toFixed(1).padStart(8)}${cost.dynamodbCalls.toFixed(1).padStart(7)}${(cost.s3Puts + cost.s3Gets).toFixed(1).padStart(5)}${cost.logBytes.toFixed(0).padStart(8)}${cost.responseBytes.toFixed(0).padStart(8)}${(cost.gzippedResponseBytes ?? cost.responseBytes).toFixed(0).padStart(8)}${cost.handlerMs.toFixed(1).padStart(8)}${Math.ceil(
        cost.handlerMs + waiting,
      )
        .toString()
        .padStart(10)}`,
    );
  }
}

/** Who makes a kind of request: the stream and the monitor are internal, the rest of the API's requests an agent's unless counted as a person's. */
function callerOf(kind: string): Caller {
  if (kind.startsWith('stream batch')) return 'stream';
  if (kind.startsWith('monitor pass')) return 'monitor';
  return kind.startsWith('other API call') ? 'user' : 'agent';
}

function bills(measurements: Measurements, stack: StackFacts, prices: Prices) {
  const { costs, perHostHour } = measurements;
  const minutesPerMonth = SECONDS_PER_MONTH / 60;
  // The host monitor runs every minute whatever the load; scheduled through EventBridge.
  const idle: WorkloadLine[] = [{ label: 'monitor passes', perMonth: minutesPerMonth, cost: costs['monitor pass (idle)']!, caller: 'monitor' }];
  const hostHours = 1_000 * 730;
  const connected: WorkloadLine[] = [
    { label: 'monitor passes', perMonth: minutesPerMonth, cost: costs[`monitor pass (${measurements.hosts} hosts)`]!, caller: 'monitor' },
    ...Object.entries(perHostHour)
      .filter(([kind, n]) => n > 0 && costs[kind])
      .map(([kind, n]) => ({ label: kind, perMonth: n * hostHours, cost: costs[kind]!, caller: callerOf(kind) })),
  ];
  return {
    idle: { lines: idle, bill: monthlyBill(idle, stack, prices, minutesPerMonth) },
    connected: { lines: connected, bill: monthlyBill(connected, stack, prices, minutesPerMonth) },
  };
}

function billTable(scenarios: Record<string, Breakdown>): string {
  const names = Object.keys(scenarios);
  const components = [...new Set(names.flatMap((name) => Object.keys(scenarios[name]!)))];
  const rows = components.map((component) => `| ${component} | ${names.map((name) => dollars(scenarios[name]![component] ?? 0)).join(' | ')} |`);
  return [
    `| component | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---|').join('')}`,
    ...rows,
    `| **total** | ${names.map((name) => `**${dollars(total(scenarios[name]!))}**`).join(' | ')} |`,
  ].join('\n');
}

/** The install workflow re-judges an installing cluster every INSTALL_POLL_SECONDS: the stack sets none, so the handlers' default. */
const DEPLOYED_INSTALL_POLL_SECONDS = 30;

/** What one install's figures rest on, as sentences for the output and the docs. */
function installAssumptionLines(a: InstallAssumptions, task: TaskFacts, pollSeconds: number, install: InstallMeasurement): string[] {
  const { run, simulated } = install;
  const follows = followPasses(a, DEPLOYED_INSTALL_POLL_SECONDS);
  return [
    `${a.clustersPerMonth} three-node clusters a month (${a.clustersPerMonth * a.hostsPerCluster} hosts), each priced as one measured install of ${a.hostsPerCluster} SIMULATED hosts (agent/src/simulate: its installer and controller report every stage; ${simulated.seconds.toFixed(0)} s from the fleet's start to installed here) on top of the idle service; installed hosts stop polling, so no connected hours after.`,
    `Agent polls: ${a.hostsPerCluster} hosts x ${a.agentPollingMinutesPerHost} min from boot to their reboot (assumed) at the service's ${pollSeconds} s interval = ${Math.round(installRequests({ drivenBy: 'agent-poll' } as InstallRequestKind, a, pollSeconds, DEPLOYED_INSTALL_POLL_SECONDS))} polls, each at the measured cost of the simulated install's polls (${simulated.polls} made at the fleet's 1 s cap).`,
    `Install workflow: openshift-install's real install assumed ${a.installMinutes} min from the installer task's end to installed (not the simulation's seconds), re-judged every ${DEPLOYED_INSTALL_POLL_SECONDS} s: ${follows} Follow passes; states entered ${workflowTransitions(run.workflowStates, run.workflowFollows, follows)} (measured ${run.workflowStates} with ${run.workflowFollows} passes, 3 states a pass).`,
    `Installer task: ${a.installerTaskMinutes} min assumed (image pull and openshift-install create ignition-configs) at the task definition's ${task.vcpu} vCPU, ${task.memoryGb} GB, ${task.architecture}; its S3 requests measured: ${run.taskS3Puts} PUT/LIST, ${run.taskS3Gets} GET (the local S3 server answered ${simulated.serverS3.puts} + ${simulated.serverS3.gets} signed requests, the functions made ${simulated.functionsS3.puts.toFixed(0)} + ${simulated.functionsS3.gets.toFixed(0)}); downloads through pre-signed URLs measured: ${run.downloadS3Gets} GET, ${run.downloadBytes} bytes.`,
    `Discovery ISO: ${(a.isoBytes / 1e9).toFixed(1)} GB, downloaded ${a.isoDownloadsPerCluster} times a cluster (once per host) from S3: one GET each and the bytes out at the data transfer rate (assumed). Ignition files and the kubeconfig are measured API answers (their bytes out through the door).`,
    `Installer progress reports and the controller's calls are counted as the simulation makes them (one report per stage; the controller's waits are short, so a real controller's repeated status reads are not all there). Monitor passes are priced as idle's. Route53 record changes are free.`,
  ];
}

function installKindsTable(install: InstallMeasurement, a: InstallAssumptions, pollSeconds: number): string {
  const rows = install.run.kinds.map(
    (kind) =>
      `| ${kind.label} | ${kind.caller} | ${kind.measuredCount} | ${Math.round(installRequests(kind, a, pollSeconds, DEPLOYED_INSTALL_POLL_SECONDS))} | ${kind.cost.readUnits.toFixed(1)} | ${kind.cost.writeUnits.toFixed(1)} | ${(kind.cost.s3Puts + kind.cost.s3Gets).toFixed(1)} | ${kind.cost.responseBytes.toFixed(0)} | ${kind.cost.handlerMs.toFixed(1)} |`,
  );
  return [
    '| request (one install) | caller | simulated | real install | RRU | WRU | S3 | resp B | own ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const DOCS_BEGIN = '<!-- cost:begin (generated by `COST_WRITE_DOCS=1 npm run bench -- cost`) -->';
const DOCS_END = '<!-- cost:end -->';

export async function cost(): Promise<Record<string, unknown>> {
  const prices = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'bench', 'cost', 'prices.json'), 'utf8')) as Prices & {
    asOf: string;
    region: string;
    fargate: FargatePrices;
  };
  const assumptions = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'bench', 'cost', 'install-assumptions.json'), 'utf8')) as InstallAssumptions;
  const stack = stackFacts();
  const sizing = Object.entries(stack.functions)
    .map(([caller, fn]) => `${caller} ${fn.memoryMb} MB ${fn.architecture} ${fn.tracing}${fn.publishesMetrics ? '' : ' no metric lines'}`)
    .join(', ');
  console.log(
    `staging stack: ${stack.natGateways} NAT gateway(s), ${stack.alarms} alarms, ${stack.secrets} secret(s), ${stack.hostedZones} hosted zone(s), ${stack.kmsKeys} KMS key(s); agents via ${stack.agentDoor}; logs at ${stack.logLevel}${stack.platformLogLines ? ' with' : ' without'} Lambda's platform lines; functions: ${sizing}`,
  );
  const measurements = await measureConnected();
  printCosts(measurements.costs, prices);
  const { idle, connected } = bills(measurements, stack, prices);
  if (!stack.installerTask) throw new Error('the staging stack has no installer task definition');
  const install = await measureInstall();
  const installed = installedMonthly(idle.lines, install.run, assumptions, stack, stack.installerTask, prices, {
    pollSeconds: measurements.pollSeconds,
    installPollSeconds: DEPLOYED_INSTALL_POLL_SECONDS,
    schedulerInvocationsPerMonth: SECONDS_PER_MONTH / 60,
  });
  const installNotes = installAssumptionLines(assumptions, stack.installerTask, measurements.pollSeconds, install);
  const installTable = installKindsTable(install, assumptions, measurements.pollSeconds);
  const perInstallTable = billTable({ 'one three-node install': installed.perInstall });
  console.log(
    `\none three-node cluster from creation to installed (workflow states: ${install.simulated.workflowHistory.join(' > ')}):\n${installTable}\n\n${perInstallTable}\n\nassumed:\n${installNotes.map((line) => `- ${line}`).join('\n')}`,
  );
  const perHost = Object.entries(measurements.perHostHour)
    .map(([kind, n]) => `${kind} ${n.toFixed(1)}`)
    .join(', ');
  console.log(`\nper connected host and hour (steady, next_instruction_seconds ${measurements.pollSeconds}): ${perHost}`);
  const table = billTable({ idle: idle.bill, '1,000 connected hosts': connected.bill, '1,000 hosts installed': installed.bill });
  console.log(`\nmonthly, ${prices.region} list prices (${prices.asOf}, bench/cost/prices.json):\n${table}`);
  const before = bills(measurements, stackBefore21(stack), prices);
  console.log(
    `\nthe same requests on the stack before #21 (NAT gateway, agents through CloudFront and REST, 1,024 MB, traced, INFO):\n${billTable({ idle: before.idle.bill, '1,000 connected hosts': before.connected.bill })}`,
  );
  const doors = doorComparison(connected.lines, stack, prices);
  const doorsTable = billTable(doors);
  console.log(`\nthe agents' requests of 1,000 connected hosts through each door (door charges and Lambda only):\n${doorsTable}`);
  const result = {
    prices: { region: prices.region, asOf: prices.asOf },
    stack,
    ...measurements,
    scenarios: { idle, connected, installed: { ...installed, assumptions, run: install.run, simulated: install.simulated } },
    before21: { idle: before.idle.bill, connected: before.connected.bill },
    doors,
  };
  const out = process.env.COST_OUT ?? path.join(tmpdir(), 'cost.json');
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nresult written to ${out}`);
  if (process.env.COST_WRITE_DOCS === '1') {
    const section = `${DOCS_BEGIN}\nRegistration, first replies and monitor passes measured in one cluster of ${measurements.hosts} hosts (LIFECYCLE_HOSTS); the steady hour on ${measurements.steady.hosts} known hosts in clusters of ${measurements.steady.clusterSize} (COST_STEADY_HOSTS, COST_CLUSTER_HOSTS), after ${measurements.steady.warmupHours} unmeasured hour(s) of the same (COST_WARMUP_HOURS); priced as 1,000 connected hosts. 1,000 hosts installed is ${assumptions.clustersPerMonth} three-node clusters a month, each one measured install (below) on top of the idle service.\n\n${table}\n\nMeasured per request (averages; "own ms" is the handler's time less its waits on the local stores, "billed ms" adds ${prices.assumedAwsLatencyMs.dynamodbCall} ms per DynamoDB call and ${prices.assumedAwsLatencyMs.s3Call} ms per S3 call):\n\n| request | RRU | WRU | DynamoDB calls | S3 requests | log bytes | own ms |\n|---|---|---|---|---|---|---|\n${Object.entries(
      measurements.costs,
    )
      .map(
        ([kind, c]) =>
          `| ${kind} | ${c.readUnits.toFixed(1)} | ${c.writeUnits.toFixed(1)} | ${c.dynamodbCalls.toFixed(1)} | ${(c.s3Puts + c.s3Gets).toFixed(1)} | ${c.logBytes.toFixed(0)} | ${c.handlerMs.toFixed(1)} |`,
      )
      .join(
        '\n',
      )}\n\nPer connected host and hour: ${perHost} (the service's poll interval for a known host: ${measurements.pollSeconds} s).\n\nOne three-node cluster from creation to installed, measured with SIMULATED hosts through the local runtime and priced for a real install's durations (1,000 hosts installed = idle + ${assumptions.clustersPerMonth} of these):\n\n${perInstallTable}\n\n${installTable}\n\nAssumed (bench/cost/install-assumptions.json):\n\n${installNotes.map((line) => `- ${line}`).join('\n')}\n\nThe agents' requests of 1,000 connected hosts through each door (the door's charges and the Lambda time):\n\n${doorsTable}\n\nThe same requests on the stack before #21 (a NAT gateway, agents through CloudFront and REST, every function 1,024 MB and traced, INFO logs with Lambda's platform lines):\n\n${billTable({ idle: before.idle.bill, '1,000 connected hosts': before.connected.bill })}\n${DOCS_END}`;
    replaceDocsSection(path.join(PROJECT_ROOT, 'docs', 'deploy.md'), DOCS_BEGIN, DOCS_END, section);
    console.log('docs/deploy.md cost section regenerated');
  }
  console.log(
    `\nbefore #21's stack changes: idle ${dollars(total(before.idle.bill))}/month, 1000 connected hosts ${dollars(total(before.connected.bill))}/month`,
  );
  console.log(`\nidle: ${dollars(total(idle.bill))}/month`);
  console.log(`1000 connected hosts: ${dollars(total(connected.bill))}/month`);
  console.log(`1000 hosts installed: ${dollars(total(installed.bill))}/month`);
  return result;
}
