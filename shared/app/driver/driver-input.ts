import { z } from 'zod';
import { DRIVER_VERSION } from '../runtime/durable-names';

/** Which branch a driver drives, and where it lives. */
export const driverInputSchema = z.strictObject({
  branchKey: z.string().min(1),
  /** The configured repository's name. */
  repository: z.string().min(1),
  branch: z.string().min(1),
});
export type DriverInput = z.infer<typeof driverInputSchema>;

/**
 * What a driver is started with: its branch, and the DRIVER_VERSION of the code that started it
 * (absent in drivers started before 0.4.0). The instance keeps it across continueAsNew, as the
 * engine keeps the instance's version, so the driver can tell code that did not start it.
 */
export const driverStartSchema = driverInputSchema.extend({ driverVersion: z.string().optional() });
export type DriverStart = z.infer<typeof driverStartSchema>;

/** The input of a driver this code starts. */
export function driverStart(input: DriverInput): DriverStart {
  return { ...input, driverVersion: DRIVER_VERSION };
}

/**
 * Why this code must not run a driver started with this input, or undefined when it may: a driver
 * started by other code (older, or newer where the worker's gate let it through) would replay its
 * history with code that did not write it, which the engine reports as nondeterminism.
 */
export function foreignDriver(start: DriverStart): string | undefined {
  if (start.driverVersion === DRIVER_VERSION) return undefined;
  const by =
    start.driverVersion === undefined ? 'code before 0.4.0' : `driver version ${start.driverVersion}`;
  return `branch ${start.branchKey}: this driver was started by ${by}; this code runs driver version ${DRIVER_VERSION}, so it ends the driver and the next wake or the driver keeper starts it again`;
}
