import type { Operation } from '../context.js';
import { v2GetNextSteps } from './v2GetNextSteps.js';
import { v2PostStepReply } from './v2PostStepReply.js';
import { v2RegisterHost } from './v2RegisterHost.js';

/** What the discovery agent calls, with its X-Secret-Key. */
export const agentOperations: Record<string, Operation> = { v2RegisterHost, v2GetNextSteps, v2PostStepReply };
