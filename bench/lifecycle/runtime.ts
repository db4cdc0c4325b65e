/** The local runtime as the benches that drive the host monitor themselves start it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../bin/local/runtime.js';

/**
 * The runtime on free ports in a fresh data directory (named from `dataDirPrefix`), its own
 * host-monitor timer set beyond any run: every monitor pass is one the bench made and counted.
 * `close` stops it and removes the directory.
 */
export async function monitorBenchRuntime(dataDirPrefix: string, options: RuntimeOptions = {}): Promise<{ runtime: Runtime; close(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), dataDirPrefix));
  const runtime = await startRuntime({ port: 0, dnsPort: 0, dataDir, scheduleOverrides: { 'host-monitor': 2_000_000_000 }, ...options });
  return {
    runtime,
    close: async () => {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
