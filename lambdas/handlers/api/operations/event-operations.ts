import type { Operation } from '../context.js';
import { v2ListEvents } from './v2ListEvents.js';

/** The events tag's operations, merged into the operations map by operations/index.ts. */
export const eventOperations: Record<string, Operation> = { v2ListEvents };
