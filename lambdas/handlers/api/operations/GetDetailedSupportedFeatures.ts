import { detailedFeatureSupport, supportFilters } from '../../../domain/catalogues.js';
import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import type { Operation } from '../context.js';
import { queryString } from '../params.js';

export const GetDetailedSupportedFeatures: Operation = async ({ api, principal }) => {
  requireRole(principal, 'read');
  const filters = supportFilters({
    openshift_version: queryString(api, 'openshift_version'),
    cpu_architecture: queryString(api, 'cpu_architecture'),
    platform_type: queryString(api, 'platform_type'),
    external_platform_name: queryString(api, 'external_platform_name'),
  });
  return json(200, detailedFeatureSupport(filters));
};
