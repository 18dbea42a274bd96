import * as df from 'durable-functions';
import { PUBLISH_ACTIVITY } from '../../orchestrators/names';
import { runPublish } from '../../shared/app/run-effects';
import { appRuntime } from '../runtime';

/** Lands a branch's pending writes on its remote (bounded; the result is data, never thrown). */
df.app.activity(PUBLISH_ACTIVITY, {
  handler: async (input: unknown) => runPublish(await appRuntime(), input, process.env),
});
