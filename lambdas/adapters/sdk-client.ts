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

/** What an SDK client's resolved config calls for the signer of each request (@aws-sdk/core's SigV4 settings). */
type SignerFor = (authScheme?: { name?: string; signingRegion?: string; signingName?: string }) => Promise<unknown>;

const SIGNERS_KEPT = Symbol.for('assisted-cloud.signers-kept');

/**
 * Has `client` sign with one signer per signing scheme, region and service instead of a new one
 * per request; returns the client. The SDK's default builds a SigV4 signer for every request from a
 * copy of the client's whole config. A signer holds no state of one request: it asks the client's
 * credential provider for credentials at each signature (rotated credentials are used as the SDK
 * uses them) and is given each request's date. A signer that failed to build is built again.
 */
export function withSignersKept<Client extends { config: object }>(client: Client): Client {
  const config = client.config as { signer?: SignerFor; [SIGNERS_KEPT]?: boolean };
  const build = config.signer;
  if (!build || config[SIGNERS_KEPT]) return client;
  config[SIGNERS_KEPT] = true;
  const kept = new Map<string, Promise<unknown>>();
  config.signer = (authScheme) => {
    const key = `${authScheme?.name}|${authScheme?.signingRegion}|${authScheme?.signingName}`;
    let signer = kept.get(key);
    if (!signer) {
      signer = build(authScheme);
      kept.set(key, signer);
      signer.catch(() => kept.delete(key));
    }
    return signer;
  };
  return client;
}
