/**
 * A command the decider cannot decide (it bypassed `branchCommandSchema`): the one thing `decide`
 * throws for. Same shape as the project's errors (`code`, `data`, `toJSON`) without importing them,
 * because `shared/branch` depends on nothing outside itself.
 */
export class InvalidBranchCommand extends Error {
  static readonly code = 'InvalidBranchCommand';
  readonly code = InvalidBranchCommand.code;
  readonly data: { commandType: string; problem: string };

  constructor(data: { commandType: string; problem: string }) {
    super(`cannot decide ${data.commandType}: ${data.problem}`);
    this.data = data;
  }

  override get name(): string {
    return this.code;
  }

  toJSON(): { code: string; data: { commandType: string; problem: string }; message: string } {
    return { code: this.code, data: this.data, message: this.message };
  }
}
