import '@patternfly/patternfly/patternfly.css';
import '@patternfly/patternfly/patternfly-addons.css';
import './console.css';
import React from 'react';
import ReactDOM from 'react-dom/client';
import './i18n';
import { App } from './App';
import { Config } from '@openshift-assisted/ui-lib/ocm';
import { authenticateUiLibClients } from './ui-lib-auth';
import { UI_LIB_BASE_PATH } from './routes';

authenticateUiLibClients();
// The library navigates to `${routeBasePath}/clusters/<id>` (after "Add hosts", from a missing
// cluster) while its routes live under assisted-installer/; the default '' would land on '/clusters'.
Config.setRouteBasePath(UI_LIB_BASE_PATH);

const rootElement = document.getElementById('root');
if (rootElement) {
  rootElement.classList.add('pf-v6-u-h-100vh');
  ReactDOM.createRoot(rootElement).render(
    <React.StrictMode>
      <App />
    </React.StrictMode>,
  );
}
