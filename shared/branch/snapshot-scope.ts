/** The part of a target a snapshot covers; an empty scope is the whole target. */
export interface SnapshotScope {
  group?: string;
  resource?: string;
  namespace?: string;
}
