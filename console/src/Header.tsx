import React from 'react';
import { Link } from 'react-router-dom-v5-compat';
import {
  Button,
  Masthead,
  MastheadBrand,
  MastheadContent,
  MastheadMain,
  Toolbar,
  ToolbarContent,
  ToolbarGroup,
  ToolbarItem,
} from '@patternfly/react-core';
import { AboutModal } from './AboutModal';
import { CLUSTERS_PATH, TOKENS_PATH } from './routes';
import { API_ROOT, signOut } from './session';

export const Header: React.FC = () => {
  const [aboutOpen, setAboutOpen] = React.useState(false);
  return (
    <Masthead>
      <MastheadMain>
        <MastheadBrand>
          <Link to={CLUSTERS_PATH} className="pf-v6-u-font-size-xl pf-v6-u-font-weight-bold pf-v6-u-text-decoration-none" style={{ color: 'var(--pf-t--global--text--color--regular)' }}>
            Assisted Installer
          </Link>
        </MastheadBrand>
      </MastheadMain>
      <MastheadContent>
        <Toolbar isFullHeight>
          <ToolbarContent>
            <ToolbarGroup align={{ default: 'alignEnd' }}>
              <ToolbarItem>
                <Link to={CLUSTERS_PATH}>Clusters</Link>
              </ToolbarItem>
              <ToolbarItem>
                <Link to={TOKENS_PATH}>Organisation and API tokens</Link>
              </ToolbarItem>
              <ToolbarItem>
                <a href={`${API_ROOT}/v2/openapi.yaml`} target="_blank" rel="noopener noreferrer">
                  API (OpenAPI)
                </a>
              </ToolbarItem>
              <ToolbarItem>
                <Button variant="link" isInline onClick={() => setAboutOpen(true)}>
                  About
                </Button>
              </ToolbarItem>
              <ToolbarItem>
                <Button variant="secondary" onClick={() => signOut()}>
                  Sign out
                </Button>
              </ToolbarItem>
            </ToolbarGroup>
          </ToolbarContent>
        </Toolbar>
      </MastheadContent>
      <AboutModal isOpen={aboutOpen} onClose={() => setAboutOpen(false)} />
    </Masthead>
  );
};
