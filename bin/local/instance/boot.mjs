// A function instance's first module: TypeScript sources load through tsx in this thread too
// (a worker does not inherit the parent's --import hooks), then the instance itself starts.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
// Tests may instrument an instance's modules (module.register hooks) before anything loads.
if (workerData.instrumentation) await import(workerData.instrumentation);
await import('./instance.ts');
