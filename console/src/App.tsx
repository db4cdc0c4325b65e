import React from 'react';
import { BrowserRouter } from 'react-router-dom';
import { CompatRouter, Route } from 'react-router-dom-v5-compat';
import { Bullseye, Page, Spinner } from '@patternfly/react-core';
import { Features, UILibRoutes } from '@openshift-assisted/ui-lib/ocm';
import { Header } from './Header';
import { SignInPage } from './pages/SignInPage';
import { TokensPage } from './pages/TokensPage';
import { TOKENS_PATH } from './routes';
import { currentToken } from './session';

export const App: React.FC = () => {
  if (!currentToken()) return <SignInPage />;
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
            </UILibRoutes>
          </React.Suspense>
        </Page>
      </CompatRouter>
    </BrowserRouter>
  );
};
