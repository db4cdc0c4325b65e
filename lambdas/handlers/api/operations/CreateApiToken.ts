import type { Role } from '../../../domain/core/entities.js';
import { json } from '../../../platform/http.js';
import { createCallersToken, tokenView } from '../../../usecases/api-tokens.js';
import type { Operation } from '../context.js';

export const CreateApiToken: Operation = async ({ event, principal, ports }) => {
  const body = event.body as { name: string; role?: Role; expires_at?: string };
  const { token, record } = await createCallersToken(ports, principal, { name: body.name, role: body.role ?? 'user', expiresAt: body.expires_at });
  return json(201, { ...tokenView(record), token });
};
