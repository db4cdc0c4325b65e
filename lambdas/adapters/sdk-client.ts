/**
 * How an adapter gets its AWS SDK client: the one it is handed (a test's, or one shared with
 * another adapter), else one it makes from these settings.
 */
export interface SdkClientOptions<Client, Config> {
  client?: Client;
  clientConfig?: Config;
}

/**
 * For an SDK client's `logger`: the SDK's logger middleware hands each call's input and output,
 * filtered for sensitive members, to `logger.info` (and a failed call's input to `logger.error`),
 * and it filters before it calls, even for its default NoOpLogger: the filter walks every attribute
 * of every item (a host's inventory included), 2 % of an Api instance's CPU in the profile. It
 * calls both only when they exist, so a logger without them skips that work; warnings and debug
 * lines are dropped, as by the default.
 */
export const sdkLoggerWithoutPayloads = { debug: () => undefined, warn: () => undefined } as unknown as {
  debug(...content: unknown[]): void;
  info(...content: unknown[]): void;
  warn(...content: unknown[]): void;
  error(...content: unknown[]): void;
};
