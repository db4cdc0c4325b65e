import React from 'react';
import { Alert, AboutModal as PFAboutModal, Content } from '@patternfly/react-core';
import { Constants } from '@openshift-assisted/ui-lib/ocm';
import { apiRequest } from './session';

type ComponentVersions = { versions?: Record<string, string>; release_tag?: string };

export const AboutModal: React.FC<{ isOpen: boolean; onClose(): void }> = ({ isOpen, onClose }) => {
  const [versions, setVersions] = React.useState<ComponentVersions>();
  const [error, setError] = React.useState<string>();

  React.useEffect(() => {
    if (!isOpen) return;
    apiRequest<ComponentVersions>('GET', '/v2/component-versions').then(setVersions, (failure: Error) => setError(failure.message));
  }, [isOpen]);

  const rows: [string, string][] = [
    ['Console', `${import.meta.env.CONSOLE_VERSION} (${import.meta.env.CONSOLE_GIT_SHA})`],
    ['Assisted Installer UI library', Constants.getAssistedUiLibVersion()],
    ...(versions?.release_tag ? [['Release tag', versions.release_tag] as [string, string]] : []),
    ...Object.entries(versions?.versions ?? {}),
  ];
  return (
    <PFAboutModal isOpen={isOpen} onClose={onClose} productName="Assisted Installer (assisted-cloud)" brandImageSrc="/logo.svg" brandImageAlt="assisted-cloud">
      {error && (
        <Alert variant="danger" isInline title="Could not read the component versions">
          {error}
        </Alert>
      )}
      {/* One term and its value a row, the value free to wrap (image references are long): a
          horizontal description list's fixed term column made them overlap. */}
      <Content component="dl" aria-label="Versions" className="console-about-versions">
        {rows.map(([name, value]) => (
          <React.Fragment key={name}>
            <Content component="dt">{name}</Content>
            <Content component="dd">{value}</Content>
          </React.Fragment>
        ))}
      </Content>
    </PFAboutModal>
  );
};
