import React from 'react';
import {
  ActionGroup,
  Alert,
  AlertActionCloseButton,
  Button,
  ClipboardCopy,
  Content,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  Form,
  FormGroup,
  FormSelect,
  FormSelectOption,
  Label,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  PageSection,
  TextInput,
  Title,
} from '@patternfly/react-core';
import { Table, Tbody, Td, Tr } from '@patternfly/react-table';
import { roleWithin, useCaller, type Role } from '../caller';
import { HeadWithActions, RowAction } from '../components/ListTable';
import { API_ROOT, apiRequest } from '../session';

type ApiToken = { id: string; name: string; role: Role; org_id?: string; created_at: string; expires_at?: string; revoked_at?: string };
type CreatedApiToken = ApiToken & { token: string };

const ROLES: { value: Role; label: string }[] = [
  { value: 'user', label: 'user — create and install clusters' },
  { value: 'read-only', label: 'read-only — view only' },
  { value: 'admin', label: 'admin — also manage API tokens' },
];

const when = (timestamp?: string) => (timestamp ? new Date(timestamp).toLocaleString() : '—');

function tokenState(token: ApiToken, now: number): { label: string; color: 'green' | 'grey' | 'orange' } {
  if (token.revoked_at) return { label: 'Revoked', color: 'grey' };
  if (token.expires_at && Date.parse(token.expires_at) <= now) return { label: 'Expired', color: 'orange' };
  return { label: 'Active', color: 'green' };
}

export const TokensPage: React.FC = () => {
  const { caller } = useCaller();
  // Admins make tokens of any role; a person, tokens of their own with at most their role (docs/api.md).
  const roles = ROLES.filter((option) => caller.isAdmin || roleWithin(option.value, caller.role));
  const [tokens, setTokens] = React.useState<ApiToken[]>();
  const [loadError, setLoadError] = React.useState<string>();
  const [actionError, setActionError] = React.useState<string>();
  const [created, setCreated] = React.useState<CreatedApiToken>();
  const [revoking, setRevoking] = React.useState<ApiToken>();
  const [name, setName] = React.useState('');
  const [role, setRole] = React.useState<Role>(caller.canWrite ? 'user' : 'read-only');
  const [expiresOn, setExpiresOn] = React.useState('');
  const [busy, setBusy] = React.useState(false);

  const load = React.useCallback(() => {
    if (!caller.canManageTokens) return;
    apiRequest<ApiToken[]>('GET', '/v2/api-tokens').then(
      (list) => {
        setTokens([...list].sort((a, b) => b.created_at.localeCompare(a.created_at)));
        setLoadError(undefined);
      },
      (failure: Error) => setLoadError(failure.message),
    );
  }, [caller.canManageTokens]);
  React.useEffect(load, [load]);

  const create = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setActionError(undefined);
    try {
      const params: { name: string; role: Role; expires_at?: string } = { name: name.trim(), role };
      // A date picked in the form means the end of that day, in the user's time zone.
      if (expiresOn) params.expires_at = new Date(`${expiresOn}T23:59:59`).toISOString();
      setCreated(await apiRequest<CreatedApiToken>('POST', '/v2/api-tokens', params));
      setName('');
      setExpiresOn('');
      load();
    } catch (failure) {
      setActionError(`Could not create the token: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (token: ApiToken) => {
    setRevoking(undefined);
    setActionError(undefined);
    try {
      await apiRequest('DELETE', `/v2/api-tokens/${encodeURIComponent(token.id)}`);
      load();
    } catch (failure) {
      setActionError(`Could not revoke "${token.name}": ${(failure as Error).message}`);
    }
  };

  const now = Date.now();
  return (
    <>
      <PageSection>
        <Title headingLevel="h1">API tokens</Title>
        <DescriptionList isHorizontal className="pf-v6-u-mt-md">
          <DescriptionListGroup>
            <DescriptionListTerm>Organisation</DescriptionListTerm>
            <DescriptionListDescription data-testid="organisation">
              {caller.organisation.name} <code className="pf-v6-u-text-color-subtle">{caller.organisation.id}</code>
            </DescriptionListDescription>
          </DescriptionListGroup>
          <DescriptionListGroup>
            <DescriptionListTerm>API reference</DescriptionListTerm>
            <DescriptionListDescription>
              <a href={`${API_ROOT}/v2/openapi.yaml`} target="_blank" rel="noopener noreferrer">
                {`${API_ROOT}/v2/openapi.yaml`}
              </a>
            </DescriptionListDescription>
          </DescriptionListGroup>
        </DescriptionList>
      </PageSection>
      {!caller.canManageTokens && (
        <PageSection>
          <Alert variant="info" isInline title="Only the organisation's admins manage API tokens" data-testid="tokens-not-offered">
            You are signed in with an API token whose role is {caller.role}: API tokens are made, listed and revoked by the organisation&apos;s admins, and by
            people signed in through the identity provider for themselves.
          </Alert>
        </PageSection>
      )}
      {caller.canManageTokens && (
        <>
          <PageSection>
            <Title headingLevel="h2">Create an API token</Title>
            {actionError && (
              <Alert variant="danger" isInline title="The API refused" className="pf-v6-u-my-md" data-testid="token-action-error">
                {actionError}
              </Alert>
            )}
            {created && (
              <Alert
                variant="success"
                isInline
                title={`Token "${created.name}" created — copy it now, it is shown only once`}
                className="pf-v6-u-my-md"
                actionClose={<AlertActionCloseButton onClose={() => setCreated(undefined)} />}
              >
                <ClipboardCopy isReadOnly hoverTip="Copy" clickTip="Copied" data-testid="created-token">
                  {created.token}
                </ClipboardCopy>
              </Alert>
            )}
            <Form isHorizontal onSubmit={(event) => void create(event)} style={{ maxWidth: 720 }}>
              <FormGroup label="Name" isRequired fieldId="token-name">
                <TextInput id="token-name" value={name} onChange={(_event, value) => setName(value)} isRequired maxLength={128} />
              </FormGroup>
              <FormGroup label="Role" fieldId="token-role">
                <FormSelect id="token-role" value={role} onChange={(_event, value) => setRole(value as Role)}>
                  {roles.map((option) => (
                    <FormSelectOption key={option.value} value={option.value} label={option.label} />
                  ))}
                </FormSelect>
              </FormGroup>
              <FormGroup label="Expires on (optional)" fieldId="token-expiry">
                <TextInput id="token-expiry" type="date" value={expiresOn} onChange={(_event, value) => setExpiresOn(value)} />
              </FormGroup>
              <ActionGroup>
                <Button type="submit" variant="primary" isDisabled={busy || !name.trim()} isLoading={busy}>
                  Create token
                </Button>
              </ActionGroup>
            </Form>
          </PageSection>
          <PageSection>
            <Title headingLevel="h2">Tokens</Title>
            {loadError && (
              <Alert variant="danger" isInline title="Could not list the API tokens" className="pf-v6-u-my-md" data-testid="token-list-error">
                {loadError}
              </Alert>
            )}
            {tokens && tokens.length === 0 && (
              <Content component="p" data-testid="tokens-empty">
                {caller.isAdmin ? 'No API tokens yet.' : 'You have made no API tokens yet.'} Create one above for scripts, the CLI or CI.
              </Content>
            )}
            {tokens && tokens.length > 0 && (
              <Table aria-label="API tokens" variant="compact">
                <HeadWithActions columns={['Name', 'Role', 'State', 'Created', 'Expires', 'ID']} />
                <Tbody>
                  {tokens.map((token) => {
                    const state = tokenState(token, now);
                    return (
                      <Tr key={token.id} data-testid={`token-row-${token.id}`}>
                        <Td dataLabel="Name">{token.name}</Td>
                        <Td dataLabel="Role">{token.role}</Td>
                        <Td dataLabel="State">
                          <Label color={state.color}>{state.label}</Label>
                        </Td>
                        <Td dataLabel="Created">{when(token.created_at)}</Td>
                        <Td dataLabel="Expires">{when(token.expires_at)}</Td>
                        <Td dataLabel="ID">
                          <code>{token.id}</code>
                        </Td>
                        <RowAction label="Revoke" shown={state.label === 'Active'} onClick={() => setRevoking(token)} />
                      </Tr>
                    );
                  })}
                </Tbody>
              </Table>
            )}
          </PageSection>
        </>
      )}
      <Modal variant="small" isOpen={revoking !== undefined} onClose={() => setRevoking(undefined)} aria-labelledby="revoke-title">
        <ModalHeader title={`Revoke "${revoking?.name ?? ''}"?`} labelId="revoke-title" titleIconVariant="warning" />
        <ModalBody>Requests with this token are refused from now on. This cannot be undone.</ModalBody>
        <ModalFooter>
          <Button variant="danger" onClick={() => revoking && void revoke(revoking)}>
            Revoke
          </Button>
          <Button variant="link" onClick={() => setRevoking(undefined)}>
            Cancel
          </Button>
        </ModalFooter>
      </Modal>
    </>
  );
};
