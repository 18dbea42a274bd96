import * as df from 'durable-functions';
import { PROJECT_STATUS_ACTIVITY } from '../../orchestrators/names';
import { projectInputSchema } from '../../shared/app/effect-inputs';
import { runProjectStatus } from '../../shared/app/run-effects';
import { appRuntime } from '../runtime';

/** Projects a resolved save's outcome to its CommitRequest. */
df.app.activity(PROJECT_STATUS_ACTIVITY, {
  handler: async (input: unknown) => runProjectStatus(await appRuntime(), projectInputSchema.parse(input)),
});
