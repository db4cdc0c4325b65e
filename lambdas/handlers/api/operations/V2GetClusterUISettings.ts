import { json } from '../../../platform/http.js';
import { getClusterUiSettings } from '../../../usecases/cluster-ui-settings.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const V2GetClusterUISettings: Operation<'V2GetClusterUISettings'> = async ({ api, principal, ports }) =>
  json(200, await getClusterUiSettings(ports, principal, pathParam(api, 'cluster_id')));
