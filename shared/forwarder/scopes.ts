import type { ForwarderConfig } from './config';

/** One watch: a type, in one namespace or (undefined) all of them. */
export interface WatchScope {
  group: string;
  version: string;
  resource: string;
  namespace: string | undefined;
}

/** The configured types times their namespaces: one watch and one snapshot scope each. */
export function watchScopes(config: ForwarderConfig): WatchScope[] {
  return config.resources.flatMap(({ group, version, resource, namespaces, clusterScoped }): WatchScope[] => {
    const chosen = clusterScoped ? undefined : (namespaces ?? config.namespaces);
    return chosen === undefined
      ? [{ group, version, resource, namespace: undefined }]
      : chosen.map((namespace) => ({ group, version, resource, namespace }));
  });
}

/** The cursor file's key of a scope, readable by people: `apps/v1/deployments@prod` (`*` = all namespaces). */
export function scopeKey(scope: WatchScope): string {
  return `${scope.group === '' ? 'core' : scope.group}/${scope.version}/${scope.resource}@${scope.namespace ?? '*'}`;
}
