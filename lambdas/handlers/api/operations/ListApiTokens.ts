import { json } from '../../../platform/http.js';
import { listCallersTokens, tokenView } from '../../../usecases/api-tokens.js';
import type { Operation } from '../context.js';

export const ListApiTokens: Operation<'ListApiTokens'> = async ({ principal, ports }) => json(200, (await listCallersTokens(ports, principal)).map(tokenView));
