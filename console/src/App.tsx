import React from 'react';
import { BrowserRouter } from 'react-router-dom';
import { CompatRouter, Route } from 'react-router-dom-v5-compat';
import { Bullseye, Page, Spinner } from '@patternfly/react-core';
import { Features, UILibRoutes } from '@openshift-assisted/ui-lib/ocm';
import { Header } from './Header';
import { CALLBACK_PATH, rememberJoinCode } from './identity';
import { JoinPage } from './pages/JoinPage';
import { OrganisationPage } from './pages/OrganisationPage';
import { SignInCallback } from './pages/SignInCallback';
import { SignInPage } from './pages/SignInPage';
import { TokensPage } from './pages/TokensPage';
import { JOIN_PATH, ORGANISATION_PATH, TOKENS_PATH } from './routes';
import { currentToken } from './session';

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
        <Page masthead={<Header />}>
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
      </CompatRouter>
    </BrowserRouter>
  );
};
