import { container } from '../../platform/container.js';
import { taskHandler } from '../../platform/middleware.js';
import { purgeObjectsBatch, type PurgeRequest } from '../../usecases/purge-objects.js';

export const handler = taskHandler(async (input: PurgeRequest) => purgeObjectsBatch(container(), input));
