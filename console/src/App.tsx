import React from 'react';
import { BrowserRouter } from 'react-router-dom';
import { CompatRouter, Route, useLocation } from 'react-router-dom-v5-compat';
import { Alert, Bullseye, Page, PageSection, Spinner } from '@patternfly/react-core';
import { Features, UILibRoutes } from '@openshift-assisted/ui-lib/ocm';
import { CallerProvider, READ_ONLY_REASON, useCaller } from './caller';
import { Header } from './Header';
import { SimulatedHosts } from './SimulatedHosts';
import { SyntheticImageNotice } from './SyntheticImageNotice';
import { CALLBACK_PATH, rememberJoinCode } from './identity';
import { LiveUpdates } from './live';
import { JoinPage } from './pages/JoinPage';
import { OrganisationPage } from './pages/OrganisationPage';
import { SignInCallback } from './pages/SignInCallback';
import { SignInPage } from './pages/SignInPage';
import { TokensPage } from './pages/TokensPage';
import { JOIN_PATH, ORGANISATION_PATH, TOKENS_PATH, UI_LIB_BASE_PATH } from './routes';
import { currentToken } from './session';

/**
 * Above the library's pages for a read-only caller: why its actions are missing. The library has a
 * viewer mode of its own for the cluster's wizard (ui-lib-auth.ts turns it on); the buttons it
 * shows anyway (new cluster, delete, kubeconfig, abort, reset) are hidden by console.css.
 */
const ReadOnlyNotice: React.FC = () => {
  const { caller } = useCaller();
  const { pathname } = useLocation();
  if (caller.canWrite || !pathname.startsWith(UI_LIB_BASE_PATH)) return null;
  return (
    <PageSection padding={{ default: 'noPadding' }}>
      <Alert variant="info" isInline isPlain title={READ_ONLY_REASON} data-testid="read-only-notice" className="pf-v6-u-px-lg pf-v6-u-pt-md" />
    </PageSection>
  );
};

export const App: React.FC = () => {
  const path = window.location.pathname;
  if (path === CALLBACK_PATH) return <SignInCallback />;
  if (path === JOIN_PATH && window.location.hash.length > 1) {
    // The code leaves the address bar (and history) at once; the tab keeps it for the sign-in round trip.
    rememberJoinCode(decodeURIComponent(window.location.hash.slice(1)));
    window.history.replaceState(null, '', JOIN_PATH);
  }
  if (!currentToken()) return <SignInPage />;
  if (path === JOIN_PATH) return <JoinPage />;
  return (
    <BrowserRouter>
      <CompatRouter>
        <CallerProvider>
          <LiveUpdates />
          <Page masthead={<Header />}>
            <ReadOnlyNotice />
            <SimulatedHosts />
            <SyntheticImageNotice />
            <React.Suspense
              fallback={
                <Bullseye>
                  <Spinner aria-label="Loading" />
                </Bullseye>
              }
            >
              <UILibRoutes allEnabledFeatures={Features.STANDALONE_DEPLOYMENT_ENABLED_FEATURES}>
                <Route path={TOKENS_PATH} element={<TokensPage />} />
                <Route path={ORGANISATION_PATH} element={<OrganisationPage />} />
              </UILibRoutes>
            </React.Suspense>
          </Page>
        </CallerProvider>
      </CompatRouter>
    </BrowserRouter>
  );
};
