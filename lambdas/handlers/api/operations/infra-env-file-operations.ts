import type { Operation } from '../context.js';
import { GetInfraEnvPresignedFileURL } from './GetInfraEnvPresignedFileURL.js';
import { v2DownloadInfraEnvFiles } from './v2DownloadInfraEnvFiles.js';

/** The infra-env file downloads, merged into the operations map by operations/index.ts. */
export const infraEnvFileOperations: Record<string, Operation> = { v2DownloadInfraEnvFiles, GetInfraEnvPresignedFileURL };
