import { componentVersions } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';

export const v2ListComponentVersions: Operation<'v2ListComponentVersions'> = async ({ ports }) => {
  const { release_tag: releaseTag, versions } = componentVersions();
  // The agent image is a setting (AGENT_DOCKER_IMAGE): report the one hosts are told to run. An
  // empty release tag is left out, as upstream's omitempty does.
  return json(200, { versions: { ...versions, 'discovery-agent': ports.config.agent.image }, ...(releaseTag ? { release_tag: releaseTag } : {}) });
};
