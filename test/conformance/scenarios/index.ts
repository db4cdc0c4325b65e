/** The whole corpus, and the CI sample of it. */
import type { Scenario } from '../scenario.js';
import { clusterScenarios } from './clusters.js';
import { featureScenarios } from './features.js';
import { hostScenarios } from './hosts.js';
import { infraEnvScenarios } from './infra-envs.js';
import { manifestScenarios } from './manifests.js';
import { networkingScenarios } from './networking.js';
import { operationScenarios } from './operations.js';
import { diskEncryptionScenarios, operatorScenarios } from './operators.js';

export function allScenarios(): Scenario[] {
  const scenarios = [
    ...clusterScenarios(),
    ...networkingScenarios(),
    ...operatorScenarios(),
    ...diskEncryptionScenarios(),
    ...featureScenarios(),
    ...manifestScenarios(),
    ...infraEnvScenarios(),
    ...hostScenarios(),
    ...operationScenarios(),
  ];
  const seen = new Set<string>();
  for (const scenario of scenarios) {
    if (seen.has(scenario.id)) throw new Error(`scenario id ${scenario.id} appears twice`);
    seen.add(scenario.id);
  }
  return scenarios;
}

/**
 * A sample that touches every area: every `stride`-th scenario of each area (at least one each),
 * with the host flows' heaviest cases thinned further. Deterministic.
 */
export function sampleScenarios(scenarios: readonly Scenario[], perArea: number): Scenario[] {
  const byArea = new Map<string, Scenario[]>();
  for (const scenario of scenarios) byArea.set(scenario.area, [...(byArea.get(scenario.area) ?? []), scenario]);
  const sample: Scenario[] = [];
  for (const items of byArea.values()) {
    const stride = Math.max(1, Math.floor(items.length / perArea));
    for (let i = 0; i < items.length && sample.filter((s) => s.area === items[0]!.area).length < perArea; i += stride) sample.push(items[i]!);
  }
  return sample;
}
