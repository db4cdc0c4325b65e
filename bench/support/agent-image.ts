import { agentSettingsFromEnvironment } from '../../lambdas/platform/config.js';

/**
 * The agent image a service started from this environment asks hosts to run (AGENT_DOCKER_IMAGE or
 * the catalogue's): a simulated fleet reporting any other version fails compatible-agent, as
 * upstream's hosts do, is told to upgrade and never sends its inventory.
 */
export function serviceAgentImage(): string {
  return agentSettingsFromEnvironment().image;
}
