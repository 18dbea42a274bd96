/** What the `read-remote` activity answers: whether the ref exists, its head, or why it could not tell. */
export interface RemoteHead {
  found: boolean;
  head?: string;
  cause?: string;
}

/** What the `project-status` activity answers: `settled` when the projection needs no retry. */
export interface ProjectionDone {
  saveId: string;
  settled: boolean;
}
