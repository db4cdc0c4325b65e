import type { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The string and number formats the router's validator knows: ajv-formats' own, plus those of
 * upstream's swagger that ajv-formats does not define. Shared with the tests that generate the
 * requests openapi.yaml accepts, so they judge a request as the router does.
 */
export function addRouterFormats(ajv: Ajv): Ajv {
  addFormats.default(ajv as never);
  ajv.addFormat('mac', /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/);
  ajv.addFormat('string', true);
  // upstream's int64 fields hold any 64-bit integer; ours hold those a JavaScript number keeps
  // exactly, and refuse the rest (1e20, 2^53 + 1) rather than store another number.
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
  return ajv;
}
