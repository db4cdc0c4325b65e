/**
 * "Boot simulated hosts" above a cluster's page, for a lab on one machine: what
 * `assisted hosts simulate --infra-env X --profiles-mix …` does from a shell (docs/cli.md), run by
 * the local runtime (bin/local/simulated-hosts.ts). Shown only where that runtime answers (never in
 * AWS) and to callers who may download the discovery image; the hosts are named SIMULATED here, in
 * the runtime's log and in the cluster's events.
 */
import React from 'react';
import { useLocation } from 'react-router-dom-v5-compat';
import { Alert, Button, Flex, FlexItem, Label, PageSection, TextInput } from '@patternfly/react-core';
import { useCaller } from './caller';
import { CLUSTERS_PATH } from './routes';
import { ApiError, apiRequest, currentToken, reasonOf } from './session';
import type { SimulatedHostsRun } from '../../contracts/simulated-hosts';

export const SIMULATED_HOSTS_PATH = '/api/local/simulated-hosts';

/** A call to the local runtime's route; `undefined` when nothing answers it (AWS serves no such path). */
async function lab<T>(method: string, query: string, body?: unknown): Promise<T | undefined> {
  const response = await fetch(`${SIMULATED_HOSTS_PATH}${query}`, {
    method,
    headers: {
      Authorization: `Bearer ${currentToken() ?? ''}`,
      Accept: 'application/json',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const isJson = (response.headers.get('Content-Type') ?? '').startsWith('application/json');
  const text = await response.text();
  const parsed: unknown = isJson && text ? JSON.parse(text) : undefined;
  if (!response.ok) throw new ApiError(response.status, reasonOf(response.status, parsed));
  if (!isJson) return undefined;
  return parsed as T;
}

const CLUSTER_PAGE = new RegExp(`^${CLUSTERS_PATH}/([0-9a-f-]{36})$`);

export const SimulatedHosts: React.FC = () => {
  const { caller } = useCaller();
  const { pathname } = useLocation();
  const clusterId = CLUSTER_PAGE.exec(pathname)?.[1];
  const [infraEnvId, setInfraEnvId] = React.useState<string>();
  const [available, setAvailable] = React.useState(false);
  const [running, setRunning] = React.useState<SimulatedHostsRun | null>(null);
  const [mix, setMix] = React.useState('master:3,worker:2');
  const [error, setError] = React.useState<string>();
  const [busy, setBusy] = React.useState(false);

  React.useEffect(() => {
    setAvailable(false);
    setInfraEnvId(undefined);
    setError(undefined);
    if (!clusterId || !caller.canWrite) return;
    let current = true;
    void (async () => {
      try {
        const [cluster, infraEnvs] = await Promise.all([
          apiRequest<{ control_plane_count?: number; high_availability_mode?: string }>('GET', `/v2/clusters/${clusterId}`),
          apiRequest<{ id: string }[]>('GET', `/v2/infra-envs?cluster_id=${clusterId}`),
        ]);
        const infraEnv = infraEnvs[0]?.id;
        if (!infraEnv || !current) return;
        const state = await lab<{ available: boolean; running: SimulatedHostsRun | null }>('GET', `?infra_env_id=${infraEnv}`).catch(() => undefined);
        if (!state?.available || !current) return;
        const singleNode = cluster.control_plane_count === 1 || cluster.high_availability_mode === 'None';
        setMix(state.running?.profiles_mix ?? (singleNode ? 'sno:1' : 'master:3,worker:2'));
        setInfraEnvId(infraEnv);
        setRunning(state.running);
        setAvailable(true);
      } catch {
        // No infra-env yet (the wizard makes it), or no lab here: nothing to offer.
      }
    })();
    return () => {
      current = false;
    };
  }, [clusterId, caller.canWrite]);

  if (!available || !infraEnvId) return null;
  const act = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <PageSection padding={{ default: 'noPadding' }} className="pf-v6-u-px-lg pf-v6-u-pt-md" data-testid="simulated-hosts">
      <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsSm' }}>
        <FlexItem>
          <Label color="orange" isCompact>
            Lab
          </Label>
        </FlexItem>
        {running ? (
          <>
            <FlexItem data-testid="simulated-hosts-running">
              {running.hosts} SIMULATED {running.hosts === 1 ? 'host is' : 'hosts are'} running ({running.profiles_mix}, network {running.network}, started by{' '}
              {running.started_by}): none of their results come from a real machine.
            </FlexItem>
            <FlexItem>
              <Button
                variant="secondary"
                size="sm"
                isDisabled={busy}
                onClick={() =>
                  void act(async () => {
                    await lab('DELETE', `?infra_env_id=${infraEnvId}`);
                    setRunning(null);
                  })
                }
              >
                Stop simulated hosts
              </Button>
            </FlexItem>
          </>
        ) : (
          <>
            <FlexItem>No machine to boot the discovery image? Boot SIMULATED hosts (local runtime only):</FlexItem>
            <FlexItem>
              <TextInput aria-label="Simulated hosts by profile" value={mix} onChange={(_event, value) => setMix(value)} style={{ width: '14rem' }} />
            </FlexItem>
            <FlexItem>
              <Button
                variant="secondary"
                size="sm"
                isDisabled={busy || !mix.trim()}
                isLoading={busy}
                onClick={() =>
                  void act(async () => {
                    setRunning((await lab<SimulatedHostsRun>('POST', '', { infra_env_id: infraEnvId, profiles_mix: mix })) ?? null);
                  })
                }
              >
                Boot simulated hosts
              </Button>
            </FlexItem>
          </>
        )}
      </Flex>
      {error && <Alert variant="danger" isInline isPlain title={`Simulated hosts: ${error}`} data-testid="simulated-hosts-error" />}
    </PageSection>
  );
};
