import { app, type InvocationContext } from '@azure/functions';
import { DRIVER_KEEPER_SCHEDULE, keepDrivers } from '../shared/app/driver/driver-keeper';
import { DRIVER_KEEPER } from '../shared/app/runtime/durable-names';
import { reportQuietSources } from '../shared/app/runtime/source-activity';
import { readBranchState, reviveDriver } from './branch-gateway';
import { durableClient, durableClientInput } from './durable-client';
import { appRuntime } from './runtime';

/**
 * Every minute: reports the sources gone quiet, and restarts the driver of each configured branch
 * that owes work and has none running.
 */
app.timer(DRIVER_KEEPER, {
  schedule: DRIVER_KEEPER_SCHEDULE,
  extraInputs: [durableClientInput],
  handler: async (_timer: unknown, context: InvocationContext) => {
    const client = durableClient(context);
    const runtime = await appRuntime();
    reportQuietSources(runtime.activity, runtime.nowMs());
    const revived = await keepDrivers(runtime, {
      read: (branchKey) => readBranchState(client, branchKey),
      revive: (input) => reviveDriver(client, input),
    });
    for (const branchKey of revived)
      context.warn(`branch ${branchKey}: its driver was not running; restarted it`);
  },
});
