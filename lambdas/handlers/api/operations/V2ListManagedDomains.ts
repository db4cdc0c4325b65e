import { listManagedDomains } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';

/** The managed base domains are the configured Route53 hosted zones (HOSTED_ZONES). */
export const V2ListManagedDomains: Operation<'V2ListManagedDomains'> = async ({ ports }) => {
  return json(200, listManagedDomains(ports.config.hostedZones));
};
