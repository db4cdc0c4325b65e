import React from 'react';
import { Alert, Bullseye, Button, Card, CardBody, CardTitle, Content, Spinner } from '@patternfly/react-core';
import { takeJoinCode } from '../identity';
import { CLUSTERS_PATH } from '../routes';
import { apiRequest } from '../session';

type Organisation = { id: string; name: string; role: string };

/** Accepts the invitation of the join link this tab was opened with, as the signed-in person. */
export const JoinPage: React.FC = () => {
  const [joined, setJoined] = React.useState<Organisation>();
  const [error, setError] = React.useState<string>();
  React.useEffect(() => {
    const code = takeJoinCode();
    if (!code) return setError('This page joins an organisation from an invitation link; open the link you were given.');
    apiRequest<Organisation>('POST', '/v2/organizations/join', { code }).then(setJoined, (failure: Error) => setError(failure.message));
  }, []);
  return (
    <Bullseye className="pf-v6-u-h-100vh">
      <Card style={{ width: 560 }}>
        <CardTitle>
          <Content component="h1">Join an organisation</Content>
        </CardTitle>
        <CardBody>
          {error && (
            <Alert variant="danger" isInline title="Could not join" data-testid="join-error">
              {error}
            </Alert>
          )}
          {joined && (
            <>
              <Alert variant="success" isInline title="Welcome" data-testid="joined">
                You joined {joined.name} as {joined.role}.
              </Alert>
              <Button className="pf-v6-u-mt-md" component="a" href={CLUSTERS_PATH}>
                Go to the clusters
              </Button>
            </>
          )}
          {!joined && !error && <Spinner aria-label="Joining" />}
        </CardBody>
      </Card>
    </Bullseye>
  );
};
