// A function instance's first module: TypeScript sources load through tsx in this thread too
// (a worker does not inherit the parent's --import hooks), then the instance itself starts.
// No top-level await here: a thread terminated while V8 settles an async module (the runtime
// stopping as an instance loads) aborts the whole process in Node 22 (nodejs/node#53238, "Check
// failed: (location_) != nullptr" in AsyncModuleExecutionFulfilled). A promise chain is not a module.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
// Tests may instrument an instance's modules (module.register hooks) before anything loads.
const instrumented = workerData.instrumentation ? import(workerData.instrumentation) : Promise.resolve();
void instrumented.then(() => import('./instance.ts'));
