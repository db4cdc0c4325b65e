import type { Operation, PublicOperation } from '../context.js';
import { BindHost } from './BindHost.js';
import { CreateApiToken } from './CreateApiToken.js';
import { DeregisterInfraEnv } from './DeregisterInfraEnv.js';
import { GetInfraEnv } from './GetInfraEnv.js';
import { GetSignInSettings } from './GetSignInSettings.js';
import { GetInfraEnvDownloadURL } from './GetInfraEnvDownloadURL.js';
import { ListApiTokens } from './ListApiTokens.js';
import { ListClusterHosts } from './ListClusterHosts.js';
import { ListInfraEnvs } from './ListInfraEnvs.js';
import { RegenerateInfraEnvSigningKey } from './RegenerateInfraEnvSigningKey.js';
import { RegisterInfraEnv } from './RegisterInfraEnv.js';
import { RevokeApiToken } from './RevokeApiToken.js';
import { UnbindHost } from './UnbindHost.js';
import { UpdateInfraEnv } from './UpdateInfraEnv.js';
import { V2UpdateCluster } from './V2UpdateCluster.js';
import { v2DeregisterCluster } from './v2DeregisterCluster.js';
import { v2DeregisterHost } from './v2DeregisterHost.js';
import { v2GetCluster } from './v2GetCluster.js';
import { v2GetHost } from './v2GetHost.js';
import { v2GetOpenApiDocument } from './v2GetOpenApiDocument.js';
import { v2ListClusters } from './v2ListClusters.js';
import { v2ListHosts } from './v2ListHosts.js';
import { v2RegisterCluster } from './v2RegisterCluster.js';
import { v2RegisterDisconnectedCluster } from './v2RegisterDisconnectedCluster.js';
import { v2ResetHostValidation } from './v2ResetHostValidation.js';
import { v2UpdateHost } from './v2UpdateHost.js';
import { actionOperations } from './action-operations.js';
import { agentOperations } from './agent-operations.js';
import { catalogueOperations } from './catalogue-operations.js';
import { clusterSettingsOperations } from './cluster-settings-operations.js';
import { eventOperations } from './event-operations.js';
import { imageOperations } from './image-operations.js';
import { infraEnvFileOperations } from './infra-env-file-operations.js';
import { installationOperations } from './installation-operations.js';
import { logOperations } from './log-operations.js';
import { manifestOperations } from './manifest-operations.js';
import { organisationOperations } from './organisation-operations.js';

/** operationId → implementation; each lives in a file named after its operationId. */
export const operations: Record<string, Operation> = {
  // clusters
  v2RegisterCluster, v2RegisterDisconnectedCluster, v2ListClusters, v2GetCluster, V2UpdateCluster, v2DeregisterCluster, ListClusterHosts,
  // infra-envs
  RegisterInfraEnv, ListInfraEnvs, GetInfraEnv, UpdateInfraEnv, DeregisterInfraEnv, GetInfraEnvDownloadURL, RegenerateInfraEnvSigningKey,
  // hosts (user side)
  v2ListHosts, v2GetHost, v2UpdateHost, v2DeregisterHost, BindHost, UnbindHost, v2ResetHostValidation,
  // API tokens (assisted-cloud)
  ListApiTokens, CreateApiToken, RevokeApiToken,
  ...agentOperations,
  ...eventOperations,
  ...infraEnvFileOperations,
  ...catalogueOperations,
  ...manifestOperations,
  ...organisationOperations,
  ...clusterSettingsOperations,
  ...actionOperations,
  ...installationOperations,
  ...logOperations,
  ...imageOperations,
};

/** Operations openapi.yaml marks with empty security: served to anyone. */
export const publicOperations: Record<string, PublicOperation> = {
  v2GetOpenApiDocument,
  GetSignInSettings,
};
