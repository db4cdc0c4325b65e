import { triggerEvent } from '../../../usecases/triggered-events.js';
import type { Operation } from '../context.js';

export const v2TriggerEvent: Operation<'v2TriggerEvent'> = async ({ body, principal, ports }) => {
  await triggerEvent(ports, principal, body);
  return { statusCode: 201, headers: {}, body: '' };
};
