import { componentVersions } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';

export const v2ListComponentVersions: Operation<'v2ListComponentVersions'> = async ({ ports }) => {
  const listed = componentVersions();
  // The agent image is a setting (AGENT_DOCKER_IMAGE): report the one hosts are told to run.
  return json(200, { ...listed, versions: { ...listed.versions, 'discovery-agent': ports.config.agent.image } });
};
