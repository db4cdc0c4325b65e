/** The stack's event bus (EventBridge in AWS): the same events webhooks carry, for other AWS consumers. */
export interface BusEvent {
  /** `assisted.<class>` */
  detailType: string;
  /** The event's JSON: the webhook body. */
  detail: string;
}

export interface EventBus {
  publish(events: readonly BusEvent[]): Promise<void>;
}
