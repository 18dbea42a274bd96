export { defaultConfigFile } from './default-config';
export { parseDuration } from './duration';
export {
  ConfigInvalid,
  type ConfigIssue,
  ConfigSecretMissing,
  ConfigUnreadable,
  type MissingVariable,
  SettingsInvalid,
} from './errors';
export {
  type ConfigOrigin,
  type ConfigSecrets,
  describeConfigOrigin,
  type LoadedConfig,
  loadConfig,
} from './load-config';
export { checkTargetPath, isLoopbackHost } from './names';
export { DEFAULT_PAYLOAD_CONTAINER, type PayloadsSetting, parsePayloadsSetting } from './payloads-setting';
export { parseByteQuantity } from './quantity';
export {
  configFileSchema,
  type EventHubSourceConfig,
  isRemoteUrl,
  type KubescribeConfig,
  type KubescribeConfigFile,
  type RepositoryConfig,
  type SourceConfig,
  type TargetConfig,
  type WebhookSourceConfig,
  writeBranchOf,
} from './schema';
export { Secret } from './secret';
export { readTlsSetting, type TlsSetting } from './tls-setting';
