import { json } from '../../../platform/http.js';
import { updateClusterUiSettings } from '../../../usecases/cluster-ui-settings.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const V2UpdateClusterUISettings: Operation<'V2UpdateClusterUISettings'> = async ({ api, body, principal, ports }) => {
  return json(200, await updateClusterUiSettings(ports, principal, pathParam(api, 'cluster_id'), body));
};
