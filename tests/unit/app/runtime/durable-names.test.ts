// Function, orchestration, activity and entity names live in durable history and in the cluster's
// webhook URLs: renaming one strands running instances. This pins the registered set.
jest.mock('@azure/functions-core', () => jest.requireActual('../../../../embedded/core-module').coreModule, {
  virtual: true,
});

import { registry } from '../../../../embedded/core-module';

describe('the functions the app registers', () => {
  it('are exactly the pinned names, with their triggers', () => {
    // The Event Hubs feed registers where a hub is configured (functions/eventhub-feed.ts).
    process.env.KUBESCRIBE_EVENTHUB_NAME = 'aks-audit';
    require('../../../../functions/index');
    const registered = [...registry.functions.values()].map((fn) => `${fn.name}: ${fn.trigger.type}`).sort();
    expect(registered).toEqual(
      [
        'branch-driver: orchestrationTrigger',
        'branch: entityTrigger',
        'dashboard: httpTrigger',
        'driver-keeper: timerTrigger',
        'eventhub-feed: eventHubTrigger',
        'healthz: httpTrigger',
        'metrics: httpTrigger',
        'project-status: activityTrigger',
        'publish: activityTrigger',
        'pull-request: activityTrigger',
        'read-remote: activityTrigger',
        'v1-admission: httpTrigger',
        'v1-branch: httpTrigger',
        'v1-branch-discard: httpTrigger',
        'v1-target-audit: httpTrigger',
        'v1-target-events: httpTrigger',
        'v1-target-history: httpTrigger',
        'v1-target-pending: httpTrigger',
        'v1-target-refresh: httpTrigger',
        'v1-target-resume: httpTrigger',
        'v1-target-save: httpTrigger',
        'v1-target-saves: httpTrigger',
        'v1-target-snapshot-complete: httpTrigger',
        'v1-target-snapshot-parts: httpTrigger',
        'v1-target-snapshots: httpTrigger',
        'v1-target-suspend: httpTrigger',
        'v1-target: httpTrigger',
        'v1-targets: httpTrigger',
        'withdraw-save: orchestrationTrigger',
      ].sort(),
    );
  });
});
