type Method = (...args: never[]) => Promise<unknown>;

/**
 * A port whose adapter (and its AWS SDK client) is loaded on the port's first call rather than at
 * cold start: most functions never call most ports (a stream batch writes no S3 object and starts
 * no workflow), and each bundle's adapters sit in chunks of their own that only such a call loads.
 * Only a port whose every method is asynchronous can wait for its adapter; the method list is
 * exhaustive by type, so a method added to the port cannot be forgotten here. A failed load is not
 * kept: the next call tries again.
 */
export function deferred<T extends { [K in keyof T]: Method }>(methods: Record<keyof T, true>, load: () => Promise<T>): T {
  let loading: Promise<T> | undefined;
  const adapter = () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
  const port: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const method of Object.keys(methods)) {
    port[method] = async (...args: unknown[]) => {
      const loaded = (await adapter()) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      return loaded[method]!(...args);
    };
  }
  return port as unknown as T;
}
