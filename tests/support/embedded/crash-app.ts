// The crash tests' app: every accepted unit of work is recorded with its id in two entities and by an
// orchestration whose activities append `<id>:<step>` lines to a file (at least once), so a test can
// check after many SIGKILLs that no acknowledged work was lost.
import { appendFileSync } from 'node:fs';
import { app, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import type { EntityContext } from 'durable-functions';
import * as df from 'durable-functions';

const effectsFile = process.env.KUBESCRIBE_TEST_EFFECTS ?? '';

df.app.entity('Ledger', (ctx: EntityContext<string[]>) => {
  const ids = ctx.df.getState(() => [])!;
  const id = ctx.df.getInput<string>()!;
  if (!ids.includes(id)) ids.push(id);
  ctx.df.setState(ids);
});

df.app.activity('Effect', {
  handler: async (input: unknown) => {
    const { id, step } = input as { id: string; step: number };
    appendFileSync(effectsFile, `${id}:${step}\n`);
    return step;
  },
});

df.app.orchestration('Job', function* (ctx) {
  const id = ctx.df.getInput<string>();
  yield ctx.df.callActivity('Effect', { id, step: 1 });
  yield ctx.df.createTimer(new Date(ctx.df.currentUtcDateTime.getTime() + 200));
  ctx.df.signalEntity(new df.EntityId('Ledger', 'jobs'), 'record', id);
  yield ctx.df.callActivity('Effect', { id, step: 2 });
  return id;
});

app.http('Work', {
  route: 'work/{id}',
  methods: ['POST'],
  extraInputs: [df.input.durableClient()],
  handler: async (req: HttpRequest, ctx: InvocationContext): Promise<HttpResponseInit> => {
    const client = df.getClient(ctx);
    const id = req.params.id!;
    await client.signalEntity(new df.EntityId('Ledger', 'accepted'), 'record', id);
    try {
      await client.startNew('Job', { instanceId: `job-${id}`, input: id });
    } catch {
      // Already started by an earlier attempt of this request: the start is idempotent.
    }
    return { status: 202, jsonBody: { id } };
  },
});
