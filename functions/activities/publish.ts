import type { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import type * as PublishActivity from '../../shared/app/activities/publish';
import { timedActivity } from '../../shared/app/activities/timed-activity';
import { PUBLISH_ACTIVITY } from '../../shared/app/runtime/durable-names';
import { readBranchState } from '../branch-gateway';
import { durableClient, durableClientInput } from '../durable-client';
import { appRuntime } from '../runtime';

// The Git executor (isomorphic-git, packing) loads with the first publication, not with the HTTP
// triggers a cold instance starts to answer.
const publishActivity = (): typeof PublishActivity => require('../../shared/app/activities/publish');

/** Lands a branch's pending writes on its remote (bounded; the result is data, never thrown). */
df.app.activity(PUBLISH_ACTIVITY, {
  extraInputs: [durableClientInput],
  handler: (input: unknown, context: InvocationContext) =>
    timedActivity(PUBLISH_ACTIVITY, async () =>
      publishActivity().runPublish(await appRuntime(), input, {
        env: process.env,
        readBranch: (branchKey) => readBranchState(durableClient(context), branchKey),
        warn: (message) => context.warn(message),
      }),
    ),
});
