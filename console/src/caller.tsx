/**
 * Who is signed in: the organisation the API says the session's credential acts for, with the
 * caller's role and who they are (a person's email, or an API token's name). Read once per page
 * load (GET /v2/organizations) and again after a change to the organisation; every page that offers
 * actions asks it what the role allows, so nobody is offered what the API would refuse.
 */
import React from 'react';
import { Alert, AlertActionLink, Bullseye, PageSection, Spinner } from '@patternfly/react-core';
import { ApiError, apiRequest, signOut } from './session';
import { callerOf, type Caller, type CallersOrganisation, type Role } from './caller-rules';

export { READ_ONLY_REASON, roleWithin, type Caller, type Role } from './caller-rules';

/**
 * The role of the signed-in caller, for code outside React (the UI library's response interceptor,
 * ui-lib-auth.ts). Set before the library's pages render.
 */
let knownRole: Role | undefined;
export const callersRole = () => knownRole;

interface CallerState {
  caller: Caller;
  /** Reads the organisation again (after a rename, a role change). */
  reload(): Promise<void>;
}

const CallerContext = React.createContext<CallerState | undefined>(undefined);

export function useCaller(): CallerState {
  const state = React.useContext(CallerContext);
  if (!state) throw new Error('useCaller outside CallerProvider');
  return state;
}

/** Renders its children once the caller is known; a refused credential ends the session with the reason. */
export const CallerProvider: React.FC<{ children: React.ReactNode }> = ({ children }) => {
  const [caller, setCaller] = React.useState<Caller>();
  const [error, setError] = React.useState<string>();
  const reload = React.useCallback(async () => {
    try {
      const [organisation] = await apiRequest<CallersOrganisation[]>('GET', '/v2/organizations');
      if (!organisation) throw new Error('The API named no organisation for this sign-in');
      const next = callerOf(organisation);
      knownRole = next.role;
      // Lets console.css hide the library's own buttons a read-only caller cannot use (App.tsx says why).
      document.body.dataset.consoleRole = next.role;
      setCaller(next);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) signOut(failure.message);
      else setError((failure as Error).message);
    }
  }, []);
  React.useEffect(() => void reload(), [reload]);
  const state = React.useMemo(() => (caller ? { caller, reload } : undefined), [caller, reload]);
  if (!state) {
    return error ? (
      <PageSection>
        <Alert
          variant="danger"
          isInline
          title="Could not read who is signed in"
          data-testid="caller-error"
          actionLinks={<AlertActionLink onClick={() => signOut()}>Sign out</AlertActionLink>}
        >
          {error}
        </Alert>
      </PageSection>
    ) : (
      <Bullseye>
        <Spinner aria-label="Loading" />
      </Bullseye>
    );
  }
  return <CallerContext.Provider value={state}>{children}</CallerContext.Provider>;
};
