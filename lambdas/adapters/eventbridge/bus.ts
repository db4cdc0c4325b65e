import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { EventBus } from '../../ports/event-bus.js';

/** PutEvents takes at most 10 entries a call. */
const ENTRIES_PER_CALL = 10;

export function createEventBridgeBus(options: { busName: string; region: string }): EventBus {
  const client = new EventBridgeClient({ region: options.region });
  return {
    async publish(events) {
      for (let start = 0; start < events.length; start += ENTRIES_PER_CALL) {
        const entries = events
          .slice(start, start + ENTRIES_PER_CALL)
          .map((event) => ({ EventBusName: options.busName, Source: 'assisted-cloud', DetailType: event.detailType, Detail: event.detail }));
        const answer = await client.send(new PutEventsCommand({ Entries: entries }));
        if ((answer.FailedEntryCount ?? 0) > 0)
          throw new Error(
            `the event bus refused ${answer.FailedEntryCount} of ${entries.length} events: ${answer.Entries?.find((entry) => entry.ErrorMessage)?.ErrorMessage ?? 'no reason given'}`,
          );
      }
    },
  };
}
