import { appSettings, functionApp } from './terraform-app-settings';
import { resourcesOfType, type TerraformModule } from './terraform-model';

// The secret rule: tokens and keys reach the app only through Key Vault references built from the
// tokenEnv, privateKeyEnv and keyEnv names of the configuration, and no plain setting carries a key, a SAS or a token.
const KEY_VAULT_REFERENCE =
  /^@Microsoft\.KeyVault\(SecretUri=\$\{azurerm_key_vault\.[a-z0-9_]+\.vault_uri\}secrets\//;
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|_KEY|ACCESSKEY|CONNECTION_?STRING|SAS)$/i;
const SECRET_VALUE = [
  'AccountKey=',
  'SharedAccessSignature=',
  'SharedAccessKey=',
  'sig=',
  'InstrumentationKey=',
  'primary_access_key',
  'secondary_access_key',
  'primary_connection_string',
  'secondary_connection_string',
  'primary_blob_connection_string',
  'instrumentation_key',
  'sas',
];
// Names that look like secrets but are not: the identity switch, and a connection string that is
// only an address once Application Insights refuses local authentication (checked below).
const NOT_SECRETS = new Set([
  'AzureWebJobsStorage__credential=managedidentity',
  `KUBESCRIBE_EVENTHUB__credential=\${local.event_hub_enabled ? "managedidentity" : ""}`,
  'APPLICATIONINSIGHTS_CONNECTION_STRING',
]);

/** Secrets reach the app only as Key Vault references; no plain setting holds one. */
export function secretSettingViolations(module: TerraformModule): string[] {
  const violations: string[] = [];
  const [address] = functionApp(module);
  const settings = appSettings(module);
  violations.push(...settings.problems);
  for (const [name, value] of settings.literal) {
    const text = String(value);
    const isReference = KEY_VAULT_REFERENCE.test(text);
    const found = SECRET_VALUE.find((marker) =>
      marker === 'sas' ? /\bsas\b|[?&]sv=/i.test(text) : text.toLowerCase().includes(marker.toLowerCase()),
    );
    if (!isReference && found) violations.push(`${address} app setting ${name} holds a secret (${found})`);
    if (
      !isReference &&
      SECRET_NAME.test(name) &&
      !NOT_SECRETS.has(`${name}=${text}`) &&
      !NOT_SECRETS.has(name)
    ) {
      violations.push(`${address} app setting ${name} looks like a secret but is not a Key Vault reference`);
    }
  }
  const insights = resourcesOfType(module, 'azurerm_application_insights');
  for (const [component, attributes] of insights) {
    // With local authentication on, the connection string's instrumentation key is enough to send telemetry.
    if (attributes.local_authentication_disabled !== true) {
      violations.push(`${component} must set local_authentication_disabled = true`);
    }
  }
  if (settings.generated.size === 0) {
    violations.push(`${address} sets no token settings: the tokens the configuration names would be missing`);
  }
  for (const [local, expression] of settings.generated) {
    const body = /^\$\{\{ for (\w+), (\w+) in local\.([a-z0-9_]+) : \1 => "(.*)" \}\}$/.exec(expression);
    if (!body) {
      violations.push(`local.${local} is not a map of Key Vault references built from the token names`);
      continue;
    }
    if (!KEY_VAULT_REFERENCE.test(body[4]!) || !body[4]!.endsWith(`\${${body[2]}}/)`)) {
      violations.push(
        `local.${local} values must be @Microsoft.KeyVault(SecretUri=...) references to versionless secrets`,
      );
    }
    const names = secretNamesFromConfig(module, body[3]!);
    if (!['repositories', 'app keys', 'signing keys', 'sources'].every((kind) => names.has(kind))) {
      violations.push(
        `local.${local} is not keyed by every tokenEnv, privateKeyEnv and signing keyEnv of the configuration`,
      );
    }
    // a target's encryption key in a plain setting would sit beside the data keys it unwraps
    if (!names.has('encryption keys')) {
      violations.push(
        `local.${local} is not keyed by every targets[].encryption.keyEnv of the configuration`,
      );
    }
  }
  return violations;
}
/**
 * Which secret names of `yamldecode(var.kubescribe_config)` a local's keys are collected from:
 * `repositories` (auth.tokenEnv), `app keys` (auth.privateKeyEnv), `signing keys` (signing.keyEnv),
 * `sources` (tokenEnv) and
 * `encryption keys` (targets[].encryption.keyEnv); none when the local is not read from that decoding.
 */
function secretNamesFromConfig(module: TerraformModule, local: string): Set<string> {
  const seen = new Set<string>();
  const sources = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    const expression = module.locals.get(name);
    if (typeof expression !== 'string') return;
    if (/\.auth\.tokenEnv\b/.test(expression) && /local\.config\.repositories/.test(expression))
      sources.add('repositories');
    if (/\.auth\.privateKeyEnv\b/.test(expression) && /local\.config\.repositories/.test(expression))
      sources.add('app keys');
    if (/\.signing\.keyEnv\b/.test(expression) && /local\.config\.repositories/.test(expression))
      sources.add('signing keys');
    if (/\.tokenEnv\b/.test(expression) && /local\.config\.sources/.test(expression)) sources.add('sources');
    if (/\.encryption\.keyEnv\b/.test(expression) && /local\.config\.targets/.test(expression))
      sources.add('encryption keys');
    for (const match of expression.matchAll(/local\.([a-z0-9_]+)/g)) visit(match[1]!);
  };
  visit(local);
  return module.locals.get('config') === `\${yamldecode(var.kubescribe_config)}` ? sources : new Set();
}
