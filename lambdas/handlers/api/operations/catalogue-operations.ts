import type { Operation } from '../context.js';
import { GetDetailedSupportedFeatures } from './GetDetailedSupportedFeatures.js';
import { GetSupportedArchitectures } from './GetSupportedArchitectures.js';
import { GetSupportedFeatures } from './GetSupportedFeatures.js';
import { V2GetClusterDefaultConfig } from './V2GetClusterDefaultConfig.js';
import { V2ListManagedDomains } from './V2ListManagedDomains.js';
import { V2ListOperatorProperties } from './V2ListOperatorProperties.js';
import { V2ListSupportedOperators } from './V2ListSupportedOperators.js';
import { v2ListComponentVersions } from './v2ListComponentVersions.js';
import { v2ListReleaseSources } from './v2ListReleaseSources.js';
import { v2ListSupportedOpenshiftVersions } from './v2ListSupportedOpenshiftVersions.js';

/** The read-only catalogue operations: versions, operators, support levels, domains, defaults. */
export const catalogueOperations: Record<string, Operation> = {
  v2ListSupportedOpenshiftVersions,
  v2ListComponentVersions,
  v2ListReleaseSources,
  V2ListSupportedOperators,
  V2ListOperatorProperties,
  GetSupportedFeatures,
  GetDetailedSupportedFeatures,
  GetSupportedArchitectures,
  V2ListManagedDomains,
  V2GetClusterDefaultConfig,
};
