/**
 * How Lambda started this container (AWS_LAMBDA_INITIALIZATION_TYPE). A container started ahead of
 * traffic (provisioned concurrency, SnapStart) may spend its init on work every request would
 * otherwise pay on first use; one started on demand keeps its cold start short instead.
 */
export function initializedAheadOfTraffic(environment: NodeJS.ProcessEnv = process.env): boolean {
  const type = environment.AWS_LAMBDA_INITIALIZATION_TYPE;
  return type === 'provisioned-concurrency' || type === 'snap-start';
}
