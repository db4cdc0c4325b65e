import type { Access } from '../../../usecases/principal.js';
import type { Operation, OperationId, PublicOperation } from '../context.js';
import type { organisationOperations } from './organisation-operations.js';

/**
 * An operation's implementation, loaded on its first call: each module (and what only it uses of
 * usecases/ and domain/) sits in chunks of its own, so a cold container compiles the code of the
 * operations it answers, not of all ~100 (an agent's poll does not load manifests, logs or installs).
 * Modules are loaded once per container. A module file that could not be read is tried again by
 * the next call; one that threw while it ran stays failed (Node keeps the error) until the container is replaced.
 */
export type OperationLoader<T> = () => Promise<T>;

/**
 * An operation of the API: who may call it, checked by the router before the handler runs (Access,
 * in usecases/principal.ts), and its handler, which receives the caller that access admits. Each
 * operation declares its access here, once; the use cases keep only the finer, secret-level checks.
 */
export type OperationEntry<Id extends OperationId> = { [A in Access]: { access: A; load: OperationLoader<Operation<Id, A>> } }[Access];

type OrganisationOperationId = keyof typeof organisationOperations;

/** One of the operations organisation-operations.ts defines: the module is loaded whole. */
const organisationOperation =
  <Id extends OrganisationOperationId>(id: Id) =>
  () =>
    import('./organisation-operations.js').then((m) => m.organisationOperations[id]);

/** Every operation organisation-operations.ts defines (the type checks the list against the module's). */
const ORGANISATION_OPERATIONS: { [Id in OrganisationOperationId]: OperationEntry<Id> } = {
  ListOrganizations: { access: 'people', load: organisationOperation('ListOrganizations') },
  GetOrganization: { access: 'people', load: organisationOperation('GetOrganization') },
  UpdateOrganization: { access: 'people', load: organisationOperation('UpdateOrganization') },
  ListOrganizationMembers: { access: 'people', load: organisationOperation('ListOrganizationMembers') },
  UpdateOrganizationMember: { access: 'people', load: organisationOperation('UpdateOrganizationMember') },
  RemoveOrganizationMember: { access: 'people', load: organisationOperation('RemoveOrganizationMember') },
  ListOrganizationInvitations: { access: 'people', load: organisationOperation('ListOrganizationInvitations') },
  CreateOrganizationInvitation: { access: 'people', load: organisationOperation('CreateOrganizationInvitation') },
  RevokeOrganizationInvitation: { access: 'people', load: organisationOperation('RevokeOrganizationInvitation') },
  AcceptOrganizationInvitation: { access: 'people', load: organisationOperation('AcceptOrganizationInvitation') },
};

/** operationId → implementation; each lives in a file named after its operationId. */
export const operations: { [Id in OperationId]?: OperationEntry<Id> } = {
  // clusters
  v2RegisterCluster: { access: 'write', load: () => import('./v2RegisterCluster.js').then((m) => m.v2RegisterCluster) },
  v2RegisterDisconnectedCluster: { access: 'write', load: () => import('./v2RegisterDisconnectedCluster.js').then((m) => m.v2RegisterDisconnectedCluster) },
  v2ImportCluster: { access: 'write', load: () => import('./v2ImportCluster.js').then((m) => m.v2ImportCluster) },
  v2ListClusters: { access: 'read', load: () => import('./v2ListClusters.js').then((m) => m.v2ListClusters) },
  v2GetCluster: { access: 'read', load: () => import('./v2GetCluster.js').then((m) => m.v2GetCluster) },
  V2UpdateCluster: { access: 'write', load: () => import('./V2UpdateCluster.js').then((m) => m.V2UpdateCluster) },
  v2DeregisterCluster: { access: 'write', load: () => import('./v2DeregisterCluster.js').then((m) => m.v2DeregisterCluster) },
  ListClusterHosts: { access: 'read', load: () => import('./ListClusterHosts.js').then((m) => m.ListClusterHosts) },
  // infra-envs
  RegisterInfraEnv: { access: 'write', load: () => import('./RegisterInfraEnv.js').then((m) => m.RegisterInfraEnv) },
  ListInfraEnvs: { access: 'read', load: () => import('./ListInfraEnvs.js').then((m) => m.ListInfraEnvs) },
  GetInfraEnv: { access: 'read', load: () => import('./GetInfraEnv.js').then((m) => m.GetInfraEnv) },
  UpdateInfraEnv: { access: 'write', load: () => import('./UpdateInfraEnv.js').then((m) => m.UpdateInfraEnv) },
  DeregisterInfraEnv: { access: 'write', load: () => import('./DeregisterInfraEnv.js').then((m) => m.DeregisterInfraEnv) },
  GetInfraEnvDownloadURL: { access: 'read', load: () => import('./GetInfraEnvDownloadURL.js').then((m) => m.GetInfraEnvDownloadURL) },
  RegenerateInfraEnvSigningKey: { access: 'write', load: () => import('./RegenerateInfraEnvSigningKey.js').then((m) => m.RegenerateInfraEnvSigningKey) },
  // hosts (user side)
  v2ListHosts: { access: 'read', load: () => import('./v2ListHosts.js').then((m) => m.v2ListHosts) },
  v2GetHost: { access: 'read', load: () => import('./v2GetHost.js').then((m) => m.v2GetHost) },
  v2UpdateHost: { access: 'write', load: () => import('./v2UpdateHost.js').then((m) => m.v2UpdateHost) },
  v2DeregisterHost: { access: 'write', load: () => import('./v2DeregisterHost.js').then((m) => m.v2DeregisterHost) },
  BindHost: { access: 'write', load: () => import('./BindHost.js').then((m) => m.BindHost) },
  UnbindHost: { access: 'write', load: () => import('./UnbindHost.js').then((m) => m.UnbindHost) },
  v2ResetHostValidation: { access: 'write', load: () => import('./v2ResetHostValidation.js').then((m) => m.v2ResetHostValidation) },
  // API tokens (assisted-cloud)
  ListApiTokens: { access: 'people', load: () => import('./ListApiTokens.js').then((m) => m.ListApiTokens) },
  CreateApiToken: { access: 'people', load: () => import('./CreateApiToken.js').then((m) => m.CreateApiToken) },
  RevokeApiToken: { access: 'people', load: () => import('./RevokeApiToken.js').then((m) => m.RevokeApiToken) },
  // Webhooks (assisted-cloud): one module, loaded whole; only admins (checked in usecases/webhooks.ts)
  ListWebhooks: { access: 'read', load: () => import('./webhook-operations.js').then((m) => m.webhookOperations.ListWebhooks) },
  CreateWebhook: { access: 'write', load: () => import('./webhook-operations.js').then((m) => m.webhookOperations.CreateWebhook) },
  DeleteWebhook: { access: 'write', load: () => import('./webhook-operations.js').then((m) => m.webhookOperations.DeleteWebhook) },
  ListWebhookDeliveries: { access: 'read', load: () => import('./webhook-operations.js').then((m) => m.webhookOperations.ListWebhookDeliveries) },
  // The audit log (assisted-cloud); only admins (checked in usecases/audit.ts)
  ListAuditEvents: { access: 'read', load: () => import('./ListAuditEvents.js').then((m) => m.ListAuditEvents) },
  // What the discovery agent calls, with its X-Secret-Key
  v2GetNextSteps: { access: 'agent', load: () => import('./v2GetNextSteps.js').then((m) => m.v2GetNextSteps) },
  v2PostStepReply: { access: 'agent', load: () => import('./v2PostStepReply.js').then((m) => m.v2PostStepReply) },
  v2RegisterHost: { access: 'agent', load: () => import('./v2RegisterHost.js').then((m) => m.v2RegisterHost) },
  // The events tag's operations
  v2ListEvents: { access: 'read', load: () => import('./v2ListEvents.js').then((m) => m.v2ListEvents) },
  v2TriggerEvent: { access: 'agent', load: () => import('./v2TriggerEvent.js').then((m) => m.v2TriggerEvent) },
  // The infra-env file downloads
  GetInfraEnvPresignedFileURL: { access: 'read', load: () => import('./GetInfraEnvPresignedFileURL.js').then((m) => m.GetInfraEnvPresignedFileURL) },
  v2DownloadInfraEnvFiles: { access: 'read', load: () => import('./v2DownloadInfraEnvFiles.js').then((m) => m.v2DownloadInfraEnvFiles) },
  // The read-only catalogue operations: versions, operators, support levels, domains, defaults
  GetDetailedSupportedFeatures: { access: 'read', load: () => import('./GetDetailedSupportedFeatures.js').then((m) => m.GetDetailedSupportedFeatures) },
  GetSupportedArchitectures: { access: 'read', load: () => import('./GetSupportedArchitectures.js').then((m) => m.GetSupportedArchitectures) },
  GetSupportedFeatures: { access: 'read', load: () => import('./GetSupportedFeatures.js').then((m) => m.GetSupportedFeatures) },
  V2GetClusterDefaultConfig: { access: 'read', load: () => import('./V2GetClusterDefaultConfig.js').then((m) => m.V2GetClusterDefaultConfig) },
  V2ListManagedDomains: { access: 'read', load: () => import('./V2ListManagedDomains.js').then((m) => m.V2ListManagedDomains) },
  V2ListOperatorProperties: { access: 'read', load: () => import('./V2ListOperatorProperties.js').then((m) => m.V2ListOperatorProperties) },
  V2ListSupportedOperators: { access: 'read', load: () => import('./V2ListSupportedOperators.js').then((m) => m.V2ListSupportedOperators) },
  v2ListComponentVersions: { access: 'read', load: () => import('./v2ListComponentVersions.js').then((m) => m.v2ListComponentVersions) },
  v2ListReleaseSources: { access: 'read', load: () => import('./v2ListReleaseSources.js').then((m) => m.v2ListReleaseSources) },
  v2ListSupportedOpenshiftVersions: {
    access: 'read',
    load: () => import('./v2ListSupportedOpenshiftVersions.js').then((m) => m.v2ListSupportedOpenshiftVersions),
  },
  // The manifests tag's operations
  V2CreateClusterManifest: { access: 'write', load: () => import('./V2CreateClusterManifest.js').then((m) => m.V2CreateClusterManifest) },
  V2DeleteClusterManifest: { access: 'write', load: () => import('./V2DeleteClusterManifest.js').then((m) => m.V2DeleteClusterManifest) },
  V2ListClusterManifests: { access: 'read', load: () => import('./V2ListClusterManifests.js').then((m) => m.V2ListClusterManifests) },
  V2UpdateClusterManifest: { access: 'write', load: () => import('./V2UpdateClusterManifest.js').then((m) => m.V2UpdateClusterManifest) },
  v2DownloadClusterManifest: { access: 'read', load: () => import('./v2DownloadClusterManifest.js').then((m) => m.v2DownloadClusterManifest) },
  // organisations (assisted-cloud): one module of inline handlers, loaded whole
  ...ORGANISATION_OPERATIONS,
  // Cluster settings beside the cluster document
  v2GetClusterInstallConfig: { access: 'read', load: () => import('./v2GetClusterInstallConfig.js').then((m) => m.v2GetClusterInstallConfig) },
  v2GetIgnoredValidations: { access: 'read', load: () => import('./v2GetIgnoredValidations.js').then((m) => m.v2GetIgnoredValidations) },
  v2GetPreflightRequirements: { access: 'read', load: () => import('./v2GetPreflightRequirements.js').then((m) => m.v2GetPreflightRequirements) },
  GetClusterSupportedPlatforms: { access: 'read', load: () => import('./GetClusterSupportedPlatforms.js').then((m) => m.GetClusterSupportedPlatforms) },
  v2SetIgnoredValidations: { access: 'write', load: () => import('./v2SetIgnoredValidations.js').then((m) => m.v2SetIgnoredValidations) },
  v2UpdateClusterInstallConfig: { access: 'write', load: () => import('./v2UpdateClusterInstallConfig.js').then((m) => m.v2UpdateClusterInstallConfig) },
  // The user's installation actions on clusters and (day-2) hosts
  V2CancelInstallation: { access: 'write', load: () => import('./V2CancelInstallation.js').then((m) => m.V2CancelInstallation) },
  v2InstallCluster: { access: 'write', load: () => import('./v2InstallCluster.js').then((m) => m.v2InstallCluster) },
  v2InstallHost: { access: 'write', load: () => import('./v2InstallHost.js').then((m) => m.v2InstallHost) },
  v2ResetCluster: { access: 'write', load: () => import('./v2ResetCluster.js').then((m) => m.v2ResetCluster) },
  v2ResetHost: { access: 'write', load: () => import('./v2ResetHost.js').then((m) => m.v2ResetHost) },
  TransformClusterToAddingHosts: { access: 'write', load: () => import('./TransformClusterToAddingHosts.js').then((m) => m.TransformClusterToAddingHosts) },
  TransformClusterToDay2: { access: 'write', load: () => import('./TransformClusterToDay2.js').then((m) => m.TransformClusterToDay2) },
  V2GetBundle: { access: 'read', load: () => import('./V2GetBundle.js').then((m) => m.V2GetBundle) },
  V2GetClusterUISettings: { access: 'read', load: () => import('./V2GetClusterUISettings.js').then((m) => m.V2GetClusterUISettings) },
  V2ListBundles: { access: 'read', load: () => import('./V2ListBundles.js').then((m) => m.V2ListBundles) },
  V2UpdateClusterUISettings: { access: 'write', load: () => import('./V2UpdateClusterUISettings.js').then((m) => m.V2UpdateClusterUISettings) },
  // What the on-host installer and the controller report during an installation, the files it produces, and the per-host installation settings
  V2DownloadClusterCredentials: { access: 'read', load: () => import('./V2DownloadClusterCredentials.js').then((m) => m.V2DownloadClusterCredentials) },
  V2DownloadClusterFiles: { access: 'read', load: () => import('./V2DownloadClusterFiles.js').then((m) => m.V2DownloadClusterFiles) },
  V2GetCredentials: { access: 'read', load: () => import('./V2GetCredentials.js').then((m) => m.V2GetCredentials) },
  V2GetPresignedForClusterCredentials: {
    access: 'read',
    load: () => import('./V2GetPresignedForClusterCredentials.js').then((m) => m.V2GetPresignedForClusterCredentials),
  },
  V2GetPresignedForClusterFiles: { access: 'read', load: () => import('./V2GetPresignedForClusterFiles.js').then((m) => m.V2GetPresignedForClusterFiles) },
  V2ListOfClusterOperators: { access: 'read', load: () => import('./V2ListOfClusterOperators.js').then((m) => m.V2ListOfClusterOperators) },
  v2CompleteInstallation: { access: 'agent', load: () => import('./v2CompleteInstallation.js').then((m) => m.v2CompleteInstallation) },
  v2DownloadHostIgnition: { access: 'read', load: () => import('./v2DownloadHostIgnition.js').then((m) => m.v2DownloadHostIgnition) },
  v2GetHostIgnition: { access: 'read', load: () => import('./v2GetHostIgnition.js').then((m) => m.v2GetHostIgnition) },
  v2ReportMonitoredOperatorStatus: {
    access: 'agent',
    load: () => import('./v2ReportMonitoredOperatorStatus.js').then((m) => m.v2ReportMonitoredOperatorStatus),
  },
  v2UpdateClusterFinalizingProgress: {
    access: 'agent',
    load: () => import('./v2UpdateClusterFinalizingProgress.js').then((m) => m.v2UpdateClusterFinalizingProgress),
  },
  v2UpdateHostIgnition: { access: 'write', load: () => import('./v2UpdateHostIgnition.js').then((m) => m.v2UpdateHostIgnition) },
  v2UpdateHostInstallProgress: { access: 'agent', load: () => import('./v2UpdateHostInstallProgress.js').then((m) => m.v2UpdateHostInstallProgress) },
  v2UpdateHostInstallerArgs: { access: 'write', load: () => import('./v2UpdateHostInstallerArgs.js').then((m) => m.v2UpdateHostInstallerArgs) },
  v2UploadClusterIngressCert: { access: 'agent', load: () => import('./v2UploadClusterIngressCert.js').then((m) => m.v2UploadClusterIngressCert) },
  // Log upload, progress and download
  V2DownloadClusterLogs: { access: 'read', load: () => import('./V2DownloadClusterLogs.js').then((m) => m.V2DownloadClusterLogs) },
  V2UploadLogs: { access: 'agent or write', load: () => import('./V2UploadLogs.js').then((m) => m.V2UploadLogs) },
  v2UpdateClusterLogsProgress: { access: 'agent', load: () => import('./v2UpdateClusterLogsProgress.js').then((m) => m.v2UpdateClusterLogsProgress) },
  v2UpdateHostLogsProgress: { access: 'agent', load: () => import('./v2UpdateHostLogsProgress.js').then((m) => m.v2UpdateHostLogsProgress) },
  // Discovery image operations of the API
  DownloadMinimalInitrd: { access: 'read', load: () => import('./DownloadMinimalInitrd.js').then((m) => m.DownloadMinimalInitrd) },
};

/** Operations openapi.yaml marks with empty security: served to anyone. */
export const publicOperations: Record<string, { access: 'public'; load: OperationLoader<PublicOperation> }> = {
  v2GetOpenApiDocument: { access: 'public', load: () => import('./v2GetOpenApiDocument.js').then((m) => m.v2GetOpenApiDocument) },
  GetSignInSettings: { access: 'public', load: () => import('./GetSignInSettings.js').then((m) => m.GetSignInSettings) },
};
