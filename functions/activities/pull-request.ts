import * as df from 'durable-functions';
import type * as PullRequestActivity from '../../shared/app/activities/pull-request';
import { timedActivity } from '../../shared/app/activities/timed-activity';
import { PULL_REQUEST_ACTIVITY } from '../../shared/app/runtime/durable-names';
import type * as Forges from '../../shared/git/forges/forge';
import { appRuntime } from '../runtime';

// The forge clients load with the first call to a host, not with the HTTP triggers a cold instance starts to answer.
const pullRequestActivity = (): typeof PullRequestActivity =>
  require('../../shared/app/activities/pull-request');
const openForge: PullRequestActivity.OpenForge = (input) =>
  (require('../../shared/git/forges/forge') as typeof Forges).openForge(input);

/** Opens or updates a proposing branch's pull request, or reads it to see it merged or closed. */
df.app.activity(PULL_REQUEST_ACTIVITY, {
  handler: (input: unknown) =>
    timedActivity(PULL_REQUEST_ACTIVITY, async () =>
      pullRequestActivity().runPullRequest(await appRuntime(), input, openForge),
    ),
});
