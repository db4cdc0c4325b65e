import React from 'react';
import { Alert, Bullseye, Button, Card, CardBody, Spinner } from '@patternfly/react-core';
import { completeIdentitySignIn } from '../identity';

/** Where the identity provider sends the browser back: the code becomes the session's token. */
export const SignInCallback: React.FC = () => {
  const [error, setError] = React.useState<string>();
  React.useEffect(() => {
    completeIdentitySignIn().then(
      (returnTo) => window.location.replace(returnTo),
      (failure: Error) => setError(failure.message),
    );
  }, []);
  return (
    <Bullseye className="pf-v6-u-h-100vh">
      <Card style={{ width: 560 }}>
        <CardBody>
          {error ? (
            <Alert
              variant="danger"
              isInline
              title="Sign-in failed"
              data-testid="sign-in-error"
              actionLinks={
                <Button variant="link" component="a" href="/">
                  Start again
                </Button>
              }
            >
              {error}
            </Alert>
          ) : (
            <Spinner aria-label="Signing in" />
          )}
        </CardBody>
      </Card>
    </Bullseye>
  );
};
