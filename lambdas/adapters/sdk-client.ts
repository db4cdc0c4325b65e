/**
 * How an adapter gets its AWS SDK client: the one it is handed (a test's, or one shared with
 * another adapter), else one it makes from these settings.
 */
export interface SdkClientOptions<Client, Config> {
  client?: Client;
  clientConfig?: Config;
}
