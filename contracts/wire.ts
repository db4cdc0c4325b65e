/**
 * The wire's shapes by the names the service and the CLI use: the types openapi-typescript
 * generates from openapi.yaml (contracts/api.ts). A request's body reaches the service's domain only
 * after the API layer has validated it against the same document.
 */
import type { components } from './api.js';

export type Schemas = components['schemas'];
export type Cluster = Schemas['cluster'];
export type Host = Schemas['host'];
export type InfraEnv = Schemas['infra-env'];
export type ClusterCreateParams = Schemas['cluster-create-params'];
export type ClusterUpdateParams = Schemas['v2-cluster-update-params'];
export type HostUpdateParams = Schemas['host-update-params'];
export type InfraEnvCreateParams = Schemas['infra-env-create-params'];
export type InfraEnvUpdateParams = Schemas['infra-env-update-params'];
