import React from 'react';
import { NavLink, useLocation } from 'react-router-dom-v5-compat';
import {
  Divider,
  Dropdown,
  DropdownItem,
  DropdownList,
  Masthead,
  MastheadBrand,
  MastheadContent,
  MastheadLogo,
  MastheadMain,
  Label,
  MenuToggle,
  Nav,
  NavItem,
  NavList,
  Toolbar,
  ToolbarContent,
  ToolbarGroup,
  ToolbarItem,
} from '@patternfly/react-core';
import { QuestionCircleIcon } from '@patternfly/react-icons';
import { AboutModal } from './AboutModal';
import { useCaller } from './caller';
import { CLUSTERS_PATH, ORGANISATION_PATH, TOKENS_PATH } from './routes';
import { providerSignOutUrl } from './identity';
import { LiveIndicator } from './live';
import { API_ROOT, currentToken, signOut } from './session';

const SECTIONS = [
  { label: 'Clusters', path: CLUSTERS_PATH },
  { label: 'Organisation', path: ORGANISATION_PATH },
  { label: 'API tokens', path: TOKENS_PATH },
];

/** A masthead menu: a toggle and its items, closed again by a choice, Escape or a click outside. */
const MastheadMenu: React.FC<{ label: string; toggle: React.ReactNode; header?: React.ReactNode; children: React.ReactNode }> = ({
  label,
  toggle,
  header,
  children,
}) => {
  const [open, setOpen] = React.useState(false);
  return (
    <Dropdown
      isOpen={open}
      onOpenChange={setOpen}
      onSelect={() => setOpen(false)}
      popperProps={{ position: 'right' }}
      toggle={(ref) => (
        <MenuToggle ref={ref} variant="plain" aria-label={label} isExpanded={open} onClick={() => setOpen(!open)}>
          {toggle}
        </MenuToggle>
      )}
    >
      {header}
      <DropdownList>{children}</DropdownList>
    </Dropdown>
  );
};

export const Header: React.FC = () => {
  const [aboutOpen, setAboutOpen] = React.useState(false);
  const { pathname } = useLocation();
  const { caller } = useCaller();
  return (
    <Masthead>
      <MastheadMain>
        <MastheadBrand>
          <MastheadLogo component={(props) => <NavLink {...props} to={CLUSTERS_PATH} />}>
            <img src="/logo.svg" alt="" height={32} width={32} className="pf-v6-u-mr-sm" />
            <span className="pf-v6-u-font-size-lg pf-v6-u-font-weight-bold" style={{ color: 'var(--pf-t--global--text--color--regular)' }}>
              Assisted Installer
            </span>
          </MastheadLogo>
        </MastheadBrand>
      </MastheadMain>
      <MastheadContent>
        <Toolbar isFullHeight isStatic>
          <ToolbarContent>
            <ToolbarItem>
              <Nav variant="horizontal" aria-label="Console sections">
                <NavList>
                  {SECTIONS.map(({ label, path }) => (
                    <NavItem key={path} isActive={pathname.startsWith(path)}>
                      <NavLink to={path}>{label}</NavLink>
                    </NavItem>
                  ))}
                </NavList>
              </Nav>
            </ToolbarItem>
            <ToolbarGroup align={{ default: 'alignEnd' }}>
              <ToolbarItem alignSelf="center">
                <LiveIndicator />
              </ToolbarItem>
              <ToolbarItem>
                <MastheadMenu label="Help" toggle={<QuestionCircleIcon />}>
                  <DropdownItem key="api" to={`${API_ROOT}/v2/openapi.yaml`} isExternalLink>
                    API reference (OpenAPI)
                  </DropdownItem>
                  <DropdownItem key="about" onClick={() => setAboutOpen(true)}>
                    About
                  </DropdownItem>
                </MastheadMenu>
              </ToolbarItem>
              <ToolbarItem>
                <MastheadMenu
                  label="Account"
                  toggle={
                    <span data-testid="caller">
                      <span data-testid="caller-name">{caller.name}</span>
                      <span className="pf-v6-u-mx-sm" data-testid="caller-organisation">
                        {caller.organisation.name}
                      </span>
                      <Label isCompact data-testid="caller-role">
                        {caller.role}
                      </Label>
                    </span>
                  }
                  header={
                    <>
                      <div className="pf-v6-u-px-md pf-v6-u-py-sm" data-testid="caller-details">
                        <div className="pf-v6-u-font-size-sm pf-v6-u-text-color-subtle">
                          {caller.isPerson ? 'Signed in through the identity provider' : 'Signed in with an API token'}
                        </div>
                        <div className="pf-v6-u-font-weight-bold">{caller.name}</div>
                        <div>
                          {caller.role} in {caller.organisation.name}
                        </div>
                      </div>
                      <Divider />
                    </>
                  }
                >
                  <DropdownItem key="sign-out" onClick={() => void providerSignOutUrl(currentToken()).then((url) => signOut(undefined, url))}>
                    Sign out
                  </DropdownItem>
                </MastheadMenu>
              </ToolbarItem>
            </ToolbarGroup>
          </ToolbarContent>
        </Toolbar>
      </MastheadContent>
      <AboutModal isOpen={aboutOpen} onClose={() => setAboutOpen(false)} />
    </Masthead>
  );
};
