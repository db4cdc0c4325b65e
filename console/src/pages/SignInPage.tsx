import React from 'react';
import {
  ActionGroup,
  Alert,
  Bullseye,
  Button,
  Card,
  CardBody,
  CardTitle,
  Content,
  Form,
  FormGroup,
  FormHelperText,
  HelperText,
  HelperTextItem,
  TextInput,
} from '@patternfly/react-core';
import { signInSettings, startIdentitySignIn, type SignInSettings } from '../identity';
import { safeReturnPath } from '../return-path';
import { CLUSTERS_PATH, JOIN_PATH } from '../routes';
import { API_ROOT, ApiError, apiRequest, storeToken, takeSignInNotice } from '../session';

/**
 * Signing in is proving the token to the API: any authenticated read will do, and the component
 * versions are the cheapest one every role may make.
 */
export const SignInPage: React.FC = () => {
  const [token, setToken] = React.useState('');
  const [notice] = React.useState<string | null>(() => takeSignInNotice());
  const [error, setError] = React.useState<string | null>(null);
  const [checking, setChecking] = React.useState(false);
  const [settings, setSettings] = React.useState<SignInSettings>();
  React.useEffect(() => void signInSettings().then(setSettings, () => setSettings({ identity_provider: false })), []);
  const joining = window.location.pathname === JOIN_PATH;
  // The address bar is anyone's to write: only a page of the console is returned to.
  const returnTo = safeReturnPath(`${window.location.pathname}${window.location.search}`, window.location.origin, CLUSTERS_PATH);
  const signInWithProvider = () => {
    setError(null);
    startIdentitySignIn(settings!, returnTo).catch((failure: Error) => setError(`Could not start the sign-in: ${failure.message}`));
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const candidate = token.trim();
    if (!candidate) return setError('Paste an API token to sign in.');
    setChecking(true);
    setError(null);
    try {
      await apiRequest('GET', '/v2/component-versions', undefined, candidate);
      storeToken(candidate);
      window.location.assign(returnTo);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 401
          ? `This token was not accepted: ${failure.message}`
          : `Could not sign in: ${(failure as Error).message}`,
      );
      setChecking(false);
    }
  };

  return (
    <Bullseye className="pf-v6-u-h-100vh">
      <Card style={{ width: 560 }}>
        <CardTitle>
          <Content component="h1">Assisted Installer</Content>
        </CardTitle>
        <CardBody>
          {joining && (
            <Alert variant="info" isInline title="You were invited to an organisation" className="pf-v6-u-mb-md">
              Sign in, or create an account with the email address the invitation was sent to, to join it.
            </Alert>
          )}
          {settings?.identity_provider && (
            <>
              <Button variant="primary" isBlock onClick={signInWithProvider} data-testid="identity-sign-in">
                Sign in or create an account
              </Button>
              <Content component="p" className="pf-v6-u-mt-lg">
                Or, for automation and the first admin:
              </Content>
            </>
          )}
          <Content component="p">
            Sign in with an API token of your organisation. The first start of the service prints an admin token and saves it to{' '}
            <code>.assisted/admin-token</code>; more are made on the API tokens page or with <code>npm run token -- create</code>.
          </Content>
          {notice && !error && (
            <Alert variant="warning" isInline title="Your session ended" className="pf-v6-u-mb-md" data-testid="sign-in-error">
              {notice}
            </Alert>
          )}
          {error && (
            <Alert variant="danger" isInline title="Sign-in failed" className="pf-v6-u-mb-md" data-testid="sign-in-error">
              {error}
            </Alert>
          )}
          <Form onSubmit={(event) => void submit(event)}>
            <FormGroup label="API token" isRequired fieldId="api-token">
              <TextInput
                id="api-token"
                name="api-token"
                type="password"
                value={token}
                onChange={(_event, value) => setToken(value)}
                autoComplete="off"
                isRequired
              />
              <FormHelperText>
                <HelperText>
                  <HelperTextItem>Kept in this tab's session storage only; signing out forgets it.</HelperTextItem>
                </HelperText>
              </FormHelperText>
            </FormGroup>
            <ActionGroup>
              <Button type="submit" variant={settings?.identity_provider ? 'secondary' : 'primary'} isLoading={checking} isDisabled={checking}>
                Sign in
              </Button>
              <Button variant="link" component="a" href={`${API_ROOT}/v2/openapi.yaml`} target="_blank">
                API reference (OpenAPI)
              </Button>
            </ActionGroup>
          </Form>
        </CardBody>
      </Card>
    </Bullseye>
  );
};
