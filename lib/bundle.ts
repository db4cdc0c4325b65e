import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { buildSync } from 'esbuild';
import { functionBundleOptions, functionSideBuilds } from './esbuild-options.js';
import { parse } from 'yaml';

export interface BundledCodeOptions {
  /** Ship openapi.yaml as openapi.json: parsing YAML is paid at every cold start (docs/deploy.md has the figure). */
  openApiDocument?: boolean;
}

/**
 * A Lambda code asset built from one entry by esbuild, in-process (no Docker, no npx). Functions of
 * the same entry share one Code object per stack, so each entry is bundled and uploaded once.
 * Stacks whose bundling is skipped (`cdk deploy OtherStack`, tests) skip it like any asset.
 */
export function bundledCode(projectRoot: string, entry: string, options: BundledCodeOptions = {}): lambda.Code {
  return lambda.Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Unused by local bundling, but part of CDK's staging cache key: without it two entries
      // (same source root, same options) would share one cached bundle.
      environment: { BUNDLED_ENTRY: `${entry}${options.openApiDocument ? '+openapi' : ''}` },
      // Never pulled: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-bookworm-slim'),
      local: {
        tryBundle(outputDir: string): boolean {
          buildSync(functionBundleOptions(projectRoot, entry, outputDir));
          for (const side of functionSideBuilds(projectRoot, outputDir)) buildSync(side);
          if (options.openApiDocument) {
            const document: unknown = parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8'));
            writeFileSync(join(outputDir, 'openapi.json'), JSON.stringify(document));
          }
          return true;
        },
      },
    },
  });
}
