import type { OperationHandlers, OperationId, PublicOperation } from '../context.js';
import type { organisationOperations } from './organisation-operations.js';

/**
 * An operation's implementation, loaded on its first call: each module (and what only it uses of
 * usecases/ and domain/) sits in chunks of its own, so a cold container compiles the code of the
 * operations it answers, not of all ~100 (an agent's poll does not load manifests, logs or installs).
 * Modules are loaded once per container. A module file that could not be read is tried again by
 * the next call; one that threw while it ran stays failed (Node keeps the error) until the container is replaced.
 */
export type OperationLoader<T> = () => Promise<T>;

type OrganisationOperationId = keyof typeof organisationOperations;

/** One of the operations organisation-operations.ts defines: the module is loaded whole. */
const organisationOperation = <Id extends OrganisationOperationId>(id: Id) => () =>
  import('./organisation-operations.js').then((m) => m.organisationOperations[id]);

/** Every operation organisation-operations.ts defines (the type checks the list against the module's). */
const ORGANISATION_OPERATIONS: { [Id in OrganisationOperationId]: OperationLoader<OperationHandlers[Id]> } = {
  ListOrganizations: organisationOperation('ListOrganizations'),
  GetOrganization: organisationOperation('GetOrganization'),
  UpdateOrganization: organisationOperation('UpdateOrganization'),
  ListOrganizationMembers: organisationOperation('ListOrganizationMembers'),
  UpdateOrganizationMember: organisationOperation('UpdateOrganizationMember'),
  RemoveOrganizationMember: organisationOperation('RemoveOrganizationMember'),
  ListOrganizationInvitations: organisationOperation('ListOrganizationInvitations'),
  CreateOrganizationInvitation: organisationOperation('CreateOrganizationInvitation'),
  RevokeOrganizationInvitation: organisationOperation('RevokeOrganizationInvitation'),
  AcceptOrganizationInvitation: organisationOperation('AcceptOrganizationInvitation'),
};

/** operationId → implementation; each lives in a file named after its operationId. */
export const operations: { [Id in OperationId]?: OperationLoader<OperationHandlers[Id]> } = {
  // clusters
  v2RegisterCluster: () => import('./v2RegisterCluster.js').then((m) => m.v2RegisterCluster),
  v2RegisterDisconnectedCluster: () => import('./v2RegisterDisconnectedCluster.js').then((m) => m.v2RegisterDisconnectedCluster),
  v2ImportCluster: () => import('./v2ImportCluster.js').then((m) => m.v2ImportCluster),
  v2ListClusters: () => import('./v2ListClusters.js').then((m) => m.v2ListClusters),
  v2GetCluster: () => import('./v2GetCluster.js').then((m) => m.v2GetCluster),
  V2UpdateCluster: () => import('./V2UpdateCluster.js').then((m) => m.V2UpdateCluster),
  v2DeregisterCluster: () => import('./v2DeregisterCluster.js').then((m) => m.v2DeregisterCluster),
  ListClusterHosts: () => import('./ListClusterHosts.js').then((m) => m.ListClusterHosts),
  // infra-envs
  RegisterInfraEnv: () => import('./RegisterInfraEnv.js').then((m) => m.RegisterInfraEnv),
  ListInfraEnvs: () => import('./ListInfraEnvs.js').then((m) => m.ListInfraEnvs),
  GetInfraEnv: () => import('./GetInfraEnv.js').then((m) => m.GetInfraEnv),
  UpdateInfraEnv: () => import('./UpdateInfraEnv.js').then((m) => m.UpdateInfraEnv),
  DeregisterInfraEnv: () => import('./DeregisterInfraEnv.js').then((m) => m.DeregisterInfraEnv),
  GetInfraEnvDownloadURL: () => import('./GetInfraEnvDownloadURL.js').then((m) => m.GetInfraEnvDownloadURL),
  RegenerateInfraEnvSigningKey: () => import('./RegenerateInfraEnvSigningKey.js').then((m) => m.RegenerateInfraEnvSigningKey),
  // hosts (user side)
  v2ListHosts: () => import('./v2ListHosts.js').then((m) => m.v2ListHosts),
  v2GetHost: () => import('./v2GetHost.js').then((m) => m.v2GetHost),
  v2UpdateHost: () => import('./v2UpdateHost.js').then((m) => m.v2UpdateHost),
  v2DeregisterHost: () => import('./v2DeregisterHost.js').then((m) => m.v2DeregisterHost),
  BindHost: () => import('./BindHost.js').then((m) => m.BindHost),
  UnbindHost: () => import('./UnbindHost.js').then((m) => m.UnbindHost),
  v2ResetHostValidation: () => import('./v2ResetHostValidation.js').then((m) => m.v2ResetHostValidation),
  // API tokens (assisted-cloud)
  ListApiTokens: () => import('./ListApiTokens.js').then((m) => m.ListApiTokens),
  CreateApiToken: () => import('./CreateApiToken.js').then((m) => m.CreateApiToken),
  RevokeApiToken: () => import('./RevokeApiToken.js').then((m) => m.RevokeApiToken),
  // Webhooks (assisted-cloud): one module, loaded whole
  ListWebhooks: () => import('./webhook-operations.js').then((m) => m.webhookOperations.ListWebhooks),
  CreateWebhook: () => import('./webhook-operations.js').then((m) => m.webhookOperations.CreateWebhook),
  DeleteWebhook: () => import('./webhook-operations.js').then((m) => m.webhookOperations.DeleteWebhook),
  ListWebhookDeliveries: () => import('./webhook-operations.js').then((m) => m.webhookOperations.ListWebhookDeliveries),
  // The audit log (assisted-cloud)
  ListAuditEvents: () => import('./ListAuditEvents.js').then((m) => m.ListAuditEvents),
  // What the discovery agent calls, with its X-Secret-Key
  v2GetNextSteps: () => import('./v2GetNextSteps.js').then((m) => m.v2GetNextSteps),
  v2PostStepReply: () => import('./v2PostStepReply.js').then((m) => m.v2PostStepReply),
  v2RegisterHost: () => import('./v2RegisterHost.js').then((m) => m.v2RegisterHost),
  // The events tag's operations
  v2ListEvents: () => import('./v2ListEvents.js').then((m) => m.v2ListEvents),
  v2TriggerEvent: () => import('./v2TriggerEvent.js').then((m) => m.v2TriggerEvent),
  // The infra-env file downloads
  GetInfraEnvPresignedFileURL: () => import('./GetInfraEnvPresignedFileURL.js').then((m) => m.GetInfraEnvPresignedFileURL),
  v2DownloadInfraEnvFiles: () => import('./v2DownloadInfraEnvFiles.js').then((m) => m.v2DownloadInfraEnvFiles),
  // The read-only catalogue operations: versions, operators, support levels, domains, defaults
  GetDetailedSupportedFeatures: () => import('./GetDetailedSupportedFeatures.js').then((m) => m.GetDetailedSupportedFeatures),
  GetSupportedArchitectures: () => import('./GetSupportedArchitectures.js').then((m) => m.GetSupportedArchitectures),
  GetSupportedFeatures: () => import('./GetSupportedFeatures.js').then((m) => m.GetSupportedFeatures),
  V2GetClusterDefaultConfig: () => import('./V2GetClusterDefaultConfig.js').then((m) => m.V2GetClusterDefaultConfig),
  V2ListManagedDomains: () => import('./V2ListManagedDomains.js').then((m) => m.V2ListManagedDomains),
  V2ListOperatorProperties: () => import('./V2ListOperatorProperties.js').then((m) => m.V2ListOperatorProperties),
  V2ListSupportedOperators: () => import('./V2ListSupportedOperators.js').then((m) => m.V2ListSupportedOperators),
  v2ListComponentVersions: () => import('./v2ListComponentVersions.js').then((m) => m.v2ListComponentVersions),
  v2ListReleaseSources: () => import('./v2ListReleaseSources.js').then((m) => m.v2ListReleaseSources),
  v2ListSupportedOpenshiftVersions: () => import('./v2ListSupportedOpenshiftVersions.js').then((m) => m.v2ListSupportedOpenshiftVersions),
  // The manifests tag's operations
  V2CreateClusterManifest: () => import('./V2CreateClusterManifest.js').then((m) => m.V2CreateClusterManifest),
  V2DeleteClusterManifest: () => import('./V2DeleteClusterManifest.js').then((m) => m.V2DeleteClusterManifest),
  V2ListClusterManifests: () => import('./V2ListClusterManifests.js').then((m) => m.V2ListClusterManifests),
  V2UpdateClusterManifest: () => import('./V2UpdateClusterManifest.js').then((m) => m.V2UpdateClusterManifest),
  v2DownloadClusterManifest: () => import('./v2DownloadClusterManifest.js').then((m) => m.v2DownloadClusterManifest),
  // organisations (assisted-cloud): one module of inline handlers, loaded whole
  ...ORGANISATION_OPERATIONS,
  // Cluster settings beside the cluster document
  v2GetClusterInstallConfig: () => import('./v2GetClusterInstallConfig.js').then((m) => m.v2GetClusterInstallConfig),
  v2GetIgnoredValidations: () => import('./v2GetIgnoredValidations.js').then((m) => m.v2GetIgnoredValidations),
  v2GetPreflightRequirements: () => import('./v2GetPreflightRequirements.js').then((m) => m.v2GetPreflightRequirements),
  v2SetIgnoredValidations: () => import('./v2SetIgnoredValidations.js').then((m) => m.v2SetIgnoredValidations),
  v2UpdateClusterInstallConfig: () => import('./v2UpdateClusterInstallConfig.js').then((m) => m.v2UpdateClusterInstallConfig),
  // The user's installation actions on clusters and (day-2) hosts
  V2CancelInstallation: () => import('./V2CancelInstallation.js').then((m) => m.V2CancelInstallation),
  v2InstallCluster: () => import('./v2InstallCluster.js').then((m) => m.v2InstallCluster),
  v2InstallHost: () => import('./v2InstallHost.js').then((m) => m.v2InstallHost),
  v2ResetCluster: () => import('./v2ResetCluster.js').then((m) => m.v2ResetCluster),
  v2ResetHost: () => import('./v2ResetHost.js').then((m) => m.v2ResetHost),
  TransformClusterToAddingHosts: () => import('./TransformClusterToAddingHosts.js').then((m) => m.TransformClusterToAddingHosts),
  TransformClusterToDay2: () => import('./TransformClusterToDay2.js').then((m) => m.TransformClusterToDay2),
  V2GetBundle: () => import('./V2GetBundle.js').then((m) => m.V2GetBundle),
  V2GetClusterUISettings: () => import('./V2GetClusterUISettings.js').then((m) => m.V2GetClusterUISettings),
  V2ListBundles: () => import('./V2ListBundles.js').then((m) => m.V2ListBundles),
  V2UpdateClusterUISettings: () => import('./V2UpdateClusterUISettings.js').then((m) => m.V2UpdateClusterUISettings),
  // What the on-host installer and the controller report during an installation, the files it produces, and the per-host installation settings
  V2DownloadClusterCredentials: () => import('./V2DownloadClusterCredentials.js').then((m) => m.V2DownloadClusterCredentials),
  V2DownloadClusterFiles: () => import('./V2DownloadClusterFiles.js').then((m) => m.V2DownloadClusterFiles),
  V2GetCredentials: () => import('./V2GetCredentials.js').then((m) => m.V2GetCredentials),
  V2GetPresignedForClusterCredentials: () => import('./V2GetPresignedForClusterCredentials.js').then((m) => m.V2GetPresignedForClusterCredentials),
  V2GetPresignedForClusterFiles: () => import('./V2GetPresignedForClusterFiles.js').then((m) => m.V2GetPresignedForClusterFiles),
  V2ListOfClusterOperators: () => import('./V2ListOfClusterOperators.js').then((m) => m.V2ListOfClusterOperators),
  v2CompleteInstallation: () => import('./v2CompleteInstallation.js').then((m) => m.v2CompleteInstallation),
  v2DownloadHostIgnition: () => import('./v2DownloadHostIgnition.js').then((m) => m.v2DownloadHostIgnition),
  v2GetHostIgnition: () => import('./v2GetHostIgnition.js').then((m) => m.v2GetHostIgnition),
  v2ReportMonitoredOperatorStatus: () => import('./v2ReportMonitoredOperatorStatus.js').then((m) => m.v2ReportMonitoredOperatorStatus),
  v2UpdateClusterFinalizingProgress: () => import('./v2UpdateClusterFinalizingProgress.js').then((m) => m.v2UpdateClusterFinalizingProgress),
  v2UpdateHostIgnition: () => import('./v2UpdateHostIgnition.js').then((m) => m.v2UpdateHostIgnition),
  v2UpdateHostInstallProgress: () => import('./v2UpdateHostInstallProgress.js').then((m) => m.v2UpdateHostInstallProgress),
  v2UpdateHostInstallerArgs: () => import('./v2UpdateHostInstallerArgs.js').then((m) => m.v2UpdateHostInstallerArgs),
  v2UploadClusterIngressCert: () => import('./v2UploadClusterIngressCert.js').then((m) => m.v2UploadClusterIngressCert),
  // Log upload, progress and download
  V2DownloadClusterLogs: () => import('./V2DownloadClusterLogs.js').then((m) => m.V2DownloadClusterLogs),
  V2UploadLogs: () => import('./V2UploadLogs.js').then((m) => m.V2UploadLogs),
  v2UpdateClusterLogsProgress: () => import('./v2UpdateClusterLogsProgress.js').then((m) => m.v2UpdateClusterLogsProgress),
  v2UpdateHostLogsProgress: () => import('./v2UpdateHostLogsProgress.js').then((m) => m.v2UpdateHostLogsProgress),
  // Discovery image operations of the API
  DownloadMinimalInitrd: () => import('./DownloadMinimalInitrd.js').then((m) => m.DownloadMinimalInitrd),
};

/** Operations openapi.yaml marks with empty security: served to anyone. */
export const publicOperations: Record<string, OperationLoader<PublicOperation>> = {
  v2GetOpenApiDocument: () => import('./v2GetOpenApiDocument.js').then((m) => m.v2GetOpenApiDocument),
  GetSignInSettings: () => import('./GetSignInSettings.js').then((m) => m.GetSignInSettings),
};
