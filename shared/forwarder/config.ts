import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { parseDuration } from '../config/duration';
import { toConfigIssues } from '../config/issues';
import { mayCarryCredential } from '../config/names';
import { ForwarderConfigInvalid } from './errors';

const durationMs = z.string().transform((text, ctx) => {
  const parsed = parseDuration(text);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: parsed.message });
    return z.NEVER;
  }
  return parsed.ms;
});

const dnsLabel = z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a lowercase DNS name');

/** One watched type, by group, version and plural resource (`group: ""` is the core group). */
const resourceSchema = z.strictObject({
  group: z.union([z.literal(''), dnsLabel]),
  version: z.string().regex(/^v\d+((alpha|beta)\d+)?$/, 'must be an API version such as "v1"'),
  resource: dnsLabel,
  /** Overrides the top-level `namespaces` for this type. */
  namespaces: z.array(dnsLabel).min(1).optional(),
  /** A cluster-scoped type is watched cluster-wide whatever `namespaces` says. */
  clusterScoped: z.boolean().default(false),
});

/** The forwarder's configuration file (YAML or JSON). Secrets are named by environment variable only. */
export const forwarderConfigSchema = z.strictObject({
  kubescribe: z
    .strictObject({
      url: z.url({ protocol: /^https?$/ }),
      target: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a target name'),
      tokenEnv: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
        .optional(),
    })
    .superRefine((value, ctx) => {
      if (value.tokenEnv !== undefined && !mayCarryCredential(new URL(value.url))) {
        ctx.addIssue({
          code: 'custom',
          path: ['url'],
          message:
            'must be https:// when tokenEnv is set (plain http:// only to a loopback host): the token would cross the network in clear',
        });
      }
    }),
  cluster: z
    .strictObject({
      /** A kubeconfig file; default: $KUBECONFIG or ~/.kube/config (client-node's loadFromDefault). */
      kubeconfig: z.string().min(1).optional(),
      context: z.string().min(1).optional(),
      /** Use the pod's service account (client-node's loadFromCluster). */
      inCluster: z.boolean().default(false),
    })
    .prefault({}),
  resources: z.array(resourceSchema).min(1),
  /** Namespaces to watch; absent = all namespaces (one cluster-wide watch per type). */
  namespaces: z.array(dnsLabel).min(1).optional(),
  exclude: z
    .strictObject({
      /** Changes whose latest managedFields entry is by one of these managers (or patterns, `*` for any run) are not forwarded: the service's `exclude.fieldManagers` rule. */
      fieldManagers: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  batch: z
    .strictObject({
      maxEvents: z.int().min(1).max(10_000).default(200),
      maxBytes: z
        .int()
        .min(1024)
        .max(9 * 1024 * 1024)
        .default(4 * 1024 * 1024),
      maxDelay: durationMs.default(1000),
    })
    .prefault({}),
  snapshot: z
    .strictObject({
      partObjects: z.int().min(1).max(10_000).default(500),
      partBytes: z
        .int()
        .min(1024)
        .max(9 * 1024 * 1024)
        .default(4 * 1024 * 1024),
      listPageSize: z.int().min(1).max(10_000).default(500),
    })
    .prefault({}),
  cursorFile: z.string().min(1).default('.kubescribe-forwarder/cursors.json'),
});

export type ForwarderConfig = z.output<typeof forwarderConfigSchema>;
export type ForwarderConfigInput = z.input<typeof forwarderConfigSchema>;

/**
 * Parses the configuration file's text (YAML or JSON). Unknown keys and bad values throw
 * `ForwarderConfigInvalid` naming each field's path.
 * @example parseForwarderConfig('kubescribe: {url: http://127.0.0.1:7071, target: local}\nresources: [...]')
 */
export function parseForwarderConfig(text: string): ForwarderConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ForwarderConfigInvalid('the configuration is not YAML or JSON', {
      issues: [{ path: '', message: error instanceof Error ? error.message.split('\n')[0]! : 'unreadable' }],
    });
  }
  const parsed = forwarderConfigSchema.safeParse(raw);
  if (!parsed.success) {
    // as the service says its own: field paths, one issue a line, in a configuration's words
    const issues = toConfigIssues(parsed.error);
    throw new ForwarderConfigInvalid(
      `the configuration is invalid:\n${issues.map((i) => `  ${i.path || '(root)'}: ${i.message}`).join('\n')}`,
      { issues },
    );
  }
  return parsed.data;
}
