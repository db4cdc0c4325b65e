/**
 * What a booted host finds in its discovery ignition to start the agent with. Lives in bench/
 * because bench code may not import test/; tests import it from here (through
 * test/support/upstream-agent.ts).
 */
/** The agent token and --agent-version image of an infra-env's discovery ignition, as a booted host finds them. */
export function agentUnitOf(discoveryIgnition: string): { token: string; image: string } {
  const token = /PULL_SECRET_TOKEN=([^"\\\s]+)/.exec(discoveryIgnition)?.[1];
  const image = /--agent-version[ =]([^"\\\s]+)/.exec(discoveryIgnition)?.[1];
  if (!token || !image) throw new Error('the discovery ignition carries no agent.service with PULL_SECRET_TOKEN and --agent-version');
  return { token, image };
}
