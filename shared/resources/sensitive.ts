/** Whether an object is a Secret or one of the configured sensitive resources, and must not be recorded. */
export function isSensitive({
  group,
  resource,
  kind,
  sensitiveResources = [],
}: {
  group: string;
  resource?: string;
  kind?: string;
  sensitiveResources?: readonly string[];
}): boolean {
  // Checked by kind as well as resource: a client could post a Secret under another resource name.
  if (group === '' && (resource === 'secrets' || kind === 'Secret')) return true;
  if (resource === undefined) return false;
  return sensitiveResources.some((entry) => entry === resource || entry === `${group}/${resource}`);
}
