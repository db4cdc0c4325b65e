import React from 'react';
import { Alert, AboutModal as PFAboutModal, Content, DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm } from '@patternfly/react-core';
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
      <Content>
        {error && <Alert variant="danger" isInline title="Could not read the component versions">{error}</Alert>}
        <DescriptionList isHorizontal aria-label="Versions">
          {rows.map(([name, value]) => (
            <DescriptionListGroup key={name}>
              <DescriptionListTerm>{name}</DescriptionListTerm>
              <DescriptionListDescription>{value}</DescriptionListDescription>
            </DescriptionListGroup>
          ))}
        </DescriptionList>
      </Content>
    </PFAboutModal>
  );
};
