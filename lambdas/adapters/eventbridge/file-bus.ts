import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { EventBus } from '../../ports/event-bus.js';

/**
 * The event bus locally: each event as EventBridge would hand it to a rule's target, one JSON line
 * in a file of the data directory (LOCAL_EVENT_BUS_FILE), for a local consumer to tail.
 */
export function createFileEventBus(file: string): EventBus {
  mkdirSync(path.dirname(file), { recursive: true });
  return {
    async publish(events) {
      const lines = events.map((event) =>
        JSON.stringify({ source: 'assisted-cloud', 'detail-type': event.detailType, time: new Date().toISOString(), detail: JSON.parse(event.detail) }),
      );
      if (lines.length > 0) appendFileSync(file, `${lines.join('\n')}\n`);
    },
  };
}
