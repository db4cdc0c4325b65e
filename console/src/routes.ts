export const UI_LIB_BASE_PATH = '/assisted-installer';
export const CLUSTERS_PATH = `${UI_LIB_BASE_PATH}/clusters`;
export const TOKENS_PATH = '/settings/api-tokens';
