import { describe, expect, it } from 'vitest';
import { validationConfigOf } from '../../lambdas/usecases/cluster-peer-listings.js';

describe('the validation settings a host judgement is made with', () => {
  it('are one object per agent settings object, so that the judgements of one cluster listing share its peers', () => {
    const agent = { image: 'quay.io/edge-infrastructure/assisted-installer-agent:latest', upgrade: true } as Parameters<typeof validationConfigOf>[0];
    const first = validationConfigOf(agent);
    expect(validationConfigOf(agent)).toBe(first);
    expect(first).toEqual({ agentImage: agent.image, enableUpgradeAgent: true });
    // Other settings, other validations.
    const other = { ...agent, upgrade: false };
    expect(validationConfigOf(other)).toEqual({ agentImage: agent.image, enableUpgradeAgent: false });
  });
});
