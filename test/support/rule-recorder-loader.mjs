// Loader hooks of a function instance (see rule-recorder-instrumentation.mjs): the service's
// imports of a state machine resolve to its recording wrapper; the wrapper's own import of the
// machine resolves as usual.
const WRAPPED = {
  '/lambdas/domain/host/host-state-machine.ts': new URL('./recording-machines/host-state-machine.ts', import.meta.url).href,
  '/lambdas/domain/cluster/cluster-state-machine.ts': new URL('./recording-machines/cluster-state-machine.ts', import.meta.url).href,
};

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const wrapper = Object.entries(WRAPPED).find(([suffix]) => resolved.url.endsWith(suffix))?.[1];
  if (!wrapper || context.parentURL === wrapper) return resolved;
  return { ...resolved, url: wrapper, shortCircuit: true };
}
