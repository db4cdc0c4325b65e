import { json } from '../../../platform/http.js';
import { createCallersToken, tokenView } from '../../../usecases/api-tokens.js';
import type { Operation } from '../context.js';

export const CreateApiToken: Operation<'CreateApiToken'> = async ({ body, principal, ports }) => {
  const { token, record } = await createCallersToken(ports, principal, { name: body.name, role: body.role ?? 'user', expiresAt: body.expires_at });
  return json(201, { ...tokenView(record), token });
};
