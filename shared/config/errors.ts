import { KubescribeError } from '../errors';

/** One problem in the configuration, at a field path such as `targets[0].window.idleTimeout`. */
export type ConfigIssue = { path: string; message: string };

/** The configuration is refused at start-up: each issue names the field and what is wrong with it. */
export class ConfigInvalid extends KubescribeError<{ source: string; issues: ConfigIssue[] }> {
  static readonly code = 'ConfigInvalid';
  readonly code = ConfigInvalid.code;

  constructor(source: string, issues: ConfigIssue[]) {
    super(
      `configuration from ${source} is invalid: ${issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ')}`,
      { source, issues },
    );
  }
}

/**
 * An environment variable the configuration names for a secret is not set. Only the variable's
 * name is reported, never a value.
 */
export class ConfigSecretMissing extends KubescribeError<{ variable: string; usedBy: string }> {
  static readonly code = 'ConfigSecretMissing';
  readonly code = ConfigSecretMissing.code;

  constructor(variable: string, usedBy: string) {
    super(`environment variable ${variable} (named by ${usedBy}) is not set or is empty`, {
      variable,
      usedBy,
    });
  }
}

/** The app settings themselves are contradictory or unusable (both config variables set, a bad PORT). */
export class SettingsInvalid extends KubescribeError<{ settings: string[]; reason: string }> {
  static readonly code = 'SettingsInvalid';
  readonly code = SettingsInvalid.code;

  constructor(settings: string[], reason: string) {
    super(`${settings.join(' and ')}: ${reason}`, { settings, reason });
  }
}

/** The configuration file named by KUBESCRIBE_CONFIG could not be read. */
export class ConfigUnreadable extends KubescribeError<{ file: string; reason: string }> {
  static readonly code = 'ConfigUnreadable';
  readonly code = ConfigUnreadable.code;

  constructor(file: string, reason: string) {
    super(`configuration file ${file} could not be read: ${reason}`, { file, reason });
  }
}
