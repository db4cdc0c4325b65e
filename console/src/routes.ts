export const UI_LIB_BASE_PATH = '/assisted-installer';
export const CLUSTERS_PATH = `${UI_LIB_BASE_PATH}/clusters`;
export const TOKENS_PATH = '/settings/api-tokens';
export const ORGANISATION_PATH = '/settings/organization';
/** A join link: `/join#<invitation code>` (a fragment never reaches a server's logs). */
export const JOIN_PATH = '/join';
