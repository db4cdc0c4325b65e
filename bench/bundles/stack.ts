/**
 * The bundles the bench measures: the staging stack synthesized as `cdk deploy -c stage=staging`
 * builds it (each function's staged asset and its environment, CloudFormation references replaced
 * by well-formed stand-ins), the floor bundle, and the stack of another commit to compare with.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { buildSync } from 'esbuild';
import { AssistedStack, PROJECT_ROOT } from '../../lib/assisted-stack.js';
import { functionBundleOptions } from '../../lib/esbuild-options.js';
import { stageConfigFromContext } from '../../lib/stage-config.js';

const REGION = 'us-east-1';
const ACCOUNT = '123456789012';

type Intrinsic = string | number | boolean | { [key: string]: unknown } | unknown[];

interface CatalogueFunction {
  name: string;
  entry: string;
  handler: string;
}

export interface Bundle {
  /** The functions shipping this asset. */
  names: string[];
  entry: string;
  handler: string;
  dir: string;
  environment: Record<string, string>;
  /** Code Node loads at init: index.mjs and the chunks it imports statically. */
  initCodeBytes: number;
  /** All code in the asset, chunks loaded on demand included. */
  codeBytes: number;
  assetBytes: number;
}

/** A value CloudFormation resolves at deploy time, as a well-formed stand-in (only shapes matter: nothing is called at import). */
function resolve(value: Intrinsic): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) throw new Error(`cannot resolve ${JSON.stringify(value)}`);
  const [[fn, arg]] = Object.entries(value) as [[string, Intrinsic]];
  switch (fn) {
    case 'Ref': {
      const pseudo: Record<string, string> = {
        'AWS::Region': REGION,
        'AWS::Partition': 'aws',
        'AWS::AccountId': ACCOUNT,
        'AWS::URLSuffix': 'amazonaws.com',
        'AWS::StackName': 'AssistedCloud-staging',
      };
      return pseudo[arg as string] ?? String(arg).toLowerCase();
    }
    case 'Fn::GetAtt': {
      const [id, attribute] = arg as [string, string];
      return attribute === 'Arn' ? `arn:aws:lambda:${REGION}:${ACCOUNT}:${id}` : `${id}.${attribute}`.toLowerCase();
    }
    case 'Fn::Join': {
      const [separator, parts] = arg as [string, Intrinsic[]];
      return parts.map(resolve).join(separator);
    }
    default:
      throw new Error(`cannot resolve ${fn} in a function's environment`);
  }
}

interface StackModules {
  root: string;
  AssistedStack: typeof AssistedStack;
  stageConfigFromContext: typeof stageConfigFromContext;
}

/** The staging stack as `cdk deploy -c stage=staging` builds it: each service function's staged asset and environment. */
export function synthesizedBundles(outdir: string, modules: StackModules = { root: PROJECT_ROOT, AssistedStack, stageConfigFromContext }): Bundle[] {
  const catalogue = JSON.parse(readFileSync(path.join(modules.root, 'lambdas/functions.json'), 'utf8')) as { functions: CatalogueFunction[] };
  const context: Record<string, string> = { stage: 'staging', alarmEmail: 'ops@example.com' };
  const app = new App({ outdir, context });
  const stack = new modules.AssistedStack(app, 'AssistedCloud-staging', { config: modules.stageConfigFromContext((key) => context[key]) });
  const template = app.synth().getStackArtifact(stack.artifactId).template as {
    Resources: Record<
      string,
      {
        Type: string;
        Properties: { Code?: { S3Key?: string }; Handler?: string; MemorySize?: number; Environment?: { Variables?: Record<string, Intrinsic> } };
      }
    >;
  };
  const entries = new Map(catalogue.functions.map((fn) => [fn.name, fn.entry]));
  const bundles = new Map<string, Bundle>();
  // The stack's functions, not only the catalogue's: some share a catalogue entry's bundle (the agents' API).
  for (const [name, fn] of Object.entries(stack.functions)) {
    const resource = template.Resources[stack.getLogicalId(fn.node.defaultChild as never)];
    if (!resource?.Properties.Code?.S3Key) throw new Error(`function ${name} has no asset in the synthesized template`);
    const dir = path.join(outdir, `asset.${resource.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
    const memory = resource.Properties.MemorySize ?? 128;
    const existing = bundles.get(dir);
    if (existing) {
      existing.names.push(`${name} (${memory} MB)`);
      existing.entry = entries.get(name) ?? existing.entry;
      continue;
    }
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((file) => statSync(path.join(dir, file)).isFile());
    bundles.set(dir, {
      names: [`${name} (${memory} MB)`],
      entry: entries.get(name) ?? '(no catalogue entry)',
      handler: resource.Properties.Handler!.replace(/^index\./, ''),
      dir,
      // Lambda unpacks the asset in /var/task: paths there are the staged asset's.
      environment: Object.fromEntries(
        Object.entries(resource.Properties.Environment?.Variables ?? {}).map(([name, value]) => [name, resolve(value).replace(/^\/var\/task(?=\/)/, dir)]),
      ),
      initCodeBytes: 0,
      codeBytes: files.filter((file) => file.endsWith('.mjs') || file.endsWith('.js')).reduce((sum, file) => sum + statSync(path.join(dir, file)).size, 0),
      assetBytes: files.reduce((sum, file) => sum + statSync(path.join(dir, file)).size, 0),
    });
  }
  return [...bundles.values()];
}

/** What Lambda itself sets in every function's environment (credentials are the execution role's; these are stand-ins). */
export function lambdaEnvironment(bundle: Bundle): Record<string, string> {
  return {
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: bundle.names[0]!.replace(/ .*/, ''),
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    LAMBDA_TASK_ROOT: bundle.dir,
    AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    AWS_SESSION_TOKEN: 'bench',
  };
}

/** The floor (bench/bundles/floor.ts), bundled as a function is, beside the stack's assets. */
export function floorBundle(outdir: string, like: Bundle): Bundle {
  const dir = path.join(outdir, 'floor');
  buildSync(functionBundleOptions(PROJECT_ROOT, 'bench/bundles/floor.ts', dir));
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((file) => statSync(path.join(dir, file)).isFile());
  const code = files.filter((file) => file.endsWith('.mjs'));
  return {
    names: ['floor: DynamoDB client, logger, metrics'],
    entry: 'bench/bundles/floor.ts',
    handler: 'handler',
    dir,
    environment: Object.fromEntries(Object.entries(like.environment).filter(([name]) => name.startsWith('POWERTOOLS_') || name === 'NODE_OPTIONS')),
    initCodeBytes: 0,
    codeBytes: code.reduce((sum, file) => sum + statSync(path.join(dir, file)).size, 0),
    assetBytes: files.reduce((sum, file) => sum + statSync(path.join(dir, file)).size, 0),
  };
}

/** The stack of another commit, from a temporary worktree that shares this one's node_modules. */
export async function comparedBundles(ref: string, outdir: string): Promise<{ bundles: Bundle[]; commit: string; cleanup: () => void }> {
  const tree = mkdtempSync(path.join(tmpdir(), 'bundles-compare-'));
  rmSync(tree, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-C', PROJECT_ROOT, ...args], { encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--short', ref);
  git('worktree', 'add', '--detach', tree, ref);
  const cleanup = () => {
    git('worktree', 'remove', '--force', tree);
  };
  try {
    symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(tree, 'node_modules'));
    const stackModule = (await import(pathToFileURL(path.join(tree, 'lib/assisted-stack.ts')).href)) as typeof import('../../lib/assisted-stack.js');
    const configModule = (await import(pathToFileURL(path.join(tree, 'lib/stage-config.ts')).href)) as typeof import('../../lib/stage-config.js');
    const bundles = synthesizedBundles(path.join(outdir, 'compared'), {
      root: tree,
      AssistedStack: stackModule.AssistedStack,
      stageConfigFromContext: configModule.stageConfigFromContext,
    });
    for (const bundle of bundles) bundle.names = bundle.names.map((name) => `${name.replace(/ \(.*/, '')} @${commit}`);
    return { bundles, commit, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}
