/**
 * How many parts one snapshot sent in pieces may have, and how many parts a branch keeps across its
 * snapshots that are not yet settled (the contract of `…/snapshots/{id}/parts`, docs/api.md).
 *
 * Why: the branch entity keeps every part's reference until its snapshot is published or
 * abandoned, and entity state must stay ≤ 1 MB at every point (the Durable Task Scheduler's
 * limit). One kept part is `{"ref": "sha256:<64 hex>", "bytes": n, "objects": n}`: 107 bytes of
 * JSON for a small part, at most {@link PART_STATE_BYTES} (116) for one at the 10 MiB body limit.
 *
 * - {@link SNAPSHOT_PARTS_MAX} = 1,000: a 100,000-object cluster in the forwarder's default parts
 *   (500 objects or 4 MiB) is 200 parts, so even one scope holding all of it fits 5 times over;
 *   a snapshot at the limit holds 1,000 × 116 B ≈ 116 KB of state.
 * - {@link BRANCH_SNAPSHOT_PARTS_MAX} = 2,000 across a branch's open snapshots (incomplete, or
 *   completed and not yet published): 2,000 × 116 B ≈ 232 KB, beside the open window's changes
 *   (at most 2,000 of about 200 B, ≈ 400 KB), so the whole state stays well under 1 MB.
 *
 * The HTTP layer refuses a part over either limit from the branch's last known state (read
 * through a cache of a second); the entity keeps every part that got past that read, so nothing
 * accepted is lost and the bound is soft by the parts in flight meanwhile.
 */
export const SNAPSHOT_PARTS_MAX = 1_000;

/** Parts kept across one branch's snapshots that are not yet settled; see {@link SNAPSHOT_PARTS_MAX}. */
export const BRANCH_SNAPSHOT_PARTS_MAX = 2_000;

/** The most JSON one kept part adds to the branch entity's state (a part of a 10 MiB body). */
export const PART_STATE_BYTES = 116;
