import { KubescribeError } from '../errors';

/** One problem in the configuration, at a field path such as `targets[0].window.idleTimeout`. */
export type ConfigIssue = { path: string; message: string };

/** The configuration is refused at start-up: each issue names the field and what is wrong with it. */
export class ConfigInvalid extends KubescribeError<{ source: string; issues: ConfigIssue[] }> {
  static readonly code = 'ConfigInvalid';
  readonly code = ConfigInvalid.code;

  constructor(source: string, issues: ConfigIssue[]) {
    // One issue a line: a configuration with five mistakes reads as a list, not one long sentence.
    super(
      `configuration from ${source} is invalid:\n${issues.map((issue) => `  ${issue.path || '(root)'}: ${issue.message}`).join('\n')}`,
      { source, issues },
    );
  }
}

/** An environment variable a setting names, and the setting (field path or variable) naming it. */
export type MissingVariable = { variable: string; usedBy: string };

/**
 * Environment variables the configuration names for secrets are not set: all of them at once, so
 * that one restart fixes them all. Only the variables' names are reported, never a value.
 */
export class ConfigSecretMissing extends KubescribeError<{ missing: MissingVariable[] }> {
  static readonly code = 'ConfigSecretMissing';
  readonly code = ConfigSecretMissing.code;

  constructor(missing: MissingVariable[]) {
    const line = ({ variable, usedBy }: MissingVariable) => `${variable} (named by ${usedBy})`;
    super(
      missing.length === 1
        ? `environment variable ${line(missing[0] as MissingVariable)} is not set or is empty`
        : `environment variables not set or empty:\n${missing.map((m) => `  ${line(m)}`).join('\n')}`,
      { missing },
    );
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

/** The system error codes a misnamed file gives, in words. */
const READ_FAILURES: Record<string, string> = {
  ENOENT: 'there is no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a folder, not a file',
};

/** The configuration file named by KUBESCRIBE_CONFIG could not be read. */
export class ConfigUnreadable extends KubescribeError<{ file: string; reason: string }> {
  static readonly code = 'ConfigUnreadable';
  readonly code = ConfigUnreadable.code;

  constructor(file: string, reason: string) {
    const why = READ_FAILURES[reason] ?? reason;
    super(`configuration file ${file} (KUBESCRIBE_CONFIG) could not be read: ${why}`, { file, reason });
  }
}
