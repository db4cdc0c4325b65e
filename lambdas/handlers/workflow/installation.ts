/** The install workflow's Lambda tasks (statemachines/install-cluster.asl.json); each is one use case. */
import { container } from '../../platform/container.js';
import { taskHandler } from '../../platform/middleware.js';
import type { InstallWorkflowInput } from '../../domain/install/installation.js';
import {
  followInstallation,
  prepareInstallation,
  publishDnsRecords,
  recordInstallationFiles,
  recordPreparationFailure,
} from '../../usecases/installation-workflow.js';

export const prepare = taskHandler(async (input: InstallWorkflowInput) => prepareInstallation(container(), input));
export const recordFiles = taskHandler(async (input: InstallWorkflowInput) => recordInstallationFiles(container(), input));
export const preparationFailed = taskHandler(async (input: InstallWorkflowInput & { failure?: { Error?: string; Cause?: string } }) =>
  recordPreparationFailure(container(), input),
);
export const publishDns = taskHandler(async (input: InstallWorkflowInput) => publishDnsRecords(container(), input));
export const follow = taskHandler(async (input: InstallWorkflowInput) => followInstallation(container(), input));
