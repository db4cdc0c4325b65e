/**
 * What the wire carries, by the names the domain uses: the types openapi-typescript generates from
 * openapi.yaml (contracts/api.ts). A request's body reaches the domain only after the API layer has
 * validated it against the same document, so these are the shapes the domain may rely on.
 */
import type { components } from '../../../contracts/api.js';

export type Wire = components['schemas'];

export type HostUpdateParams = Wire['host-update-params'];
export type ClusterCreateParams = Wire['cluster-create-params'];
export type ClusterUpdateParams = Wire['v2-cluster-update-params'];
export type InfraEnvCreateParams = Wire['infra-env-create-params'];
export type InfraEnvUpdateParams = Wire['infra-env-update-params'];
