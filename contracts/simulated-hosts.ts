/**
 * A run of SIMULATED hosts the local runtime started for an infra-env, as its route
 * /api/local/simulated-hosts lists it and the console's "Boot simulated hosts" shows it.
 */
export interface SimulatedHostsRun {
  infra_env_id: string;
  profiles_mix: string;
  hosts: number;
  network: string;
  started_at: string;
  started_by: string;
}
