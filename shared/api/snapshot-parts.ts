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
 *   (500 objects or 4 MiB) is at most 200 parts, so even one scope holding all of it fits 5 times over;
 *   a snapshot at the limit holds 1,000 × 116 B ≈ 116 KB of state.
 * - {@link BRANCH_SNAPSHOT_PARTS_MAX} = 2,000 across a branch's snapshots that hold parts
 *   (incomplete, or completed and not yet published), each snapshot counting
 *   {@link SNAPSHOT_RECORD_PARTS} parts more for its own record: 2,000 × 116 B ≈ 232 KB whether
 *   the parts are in two snapshots of 992 or in 222 snapshots of one, beside the open window's
 *   changes (at most 2,000 of about 200 B, ≈ 400 KB), so the whole state stays well under 1 MB.
 *
 * The HTTP layer refuses a part over either limit from the branch's last known state (read
 * through a cache of a second); the entity keeps every part that got past that read, so nothing
 * accepted is lost and the bound is soft by the parts in flight meanwhile. Not counted here: a
 * published snapshot's entry, remembered an hour without its parts (about 300 B) so that a late
 * part is applied rather than kept open.
 */
export const SNAPSHOT_PARTS_MAX = 1_000;

/** Parts kept across one branch's snapshots that are not yet settled; see {@link SNAPSHOT_PARTS_MAX}. */
export const BRANCH_SNAPSHOT_PARTS_MAX = 2_000;

/**
 * What a snapshot holding parts costs beside them, in parts: its entry and, once completed, its
 * pending write weigh about 660 B with a UUID id and long scope names, 850 B with a 128-character
 * id, under 8 × 116 B (tests/unit/app/entity/snapshot-parts-state-size.test.ts).
 */
export const SNAPSHOT_RECORD_PARTS = 8;

/** The most JSON one kept part adds to the branch entity's state (a part of a 10 MiB body). */
export const PART_STATE_BYTES = 116;
