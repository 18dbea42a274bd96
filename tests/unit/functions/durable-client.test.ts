// The durable client a function gets from its binding: reused while the host's client data stays
// the same (durable-functions' getClient copies the data and makes an axios instance on each call).
// The data is the durableClient binding's as the Durable Functions extension gives it, the same
// shape the embedded host hands out (embedded/host.ts clientData).
import { InvocationContext } from '@azure/functions';
import { durableClient, durableClientInput } from '../../../functions/durable-client';

function clientData(rpcBaseUrl: string, taskHubName = 'hub') {
  const q = `taskHub=${taskHubName}&connection=Storage`;
  const instance = `${rpcBaseUrl}instances/INSTANCEID`;
  return {
    taskHubName,
    creationUrls: {
      createNewInstancePostUri: `${rpcBaseUrl}orchestrators/{functionName}[/{instanceId}]?${q}`,
      createAndWaitOnNewInstancePostUri: `${rpcBaseUrl}orchestrators/{functionName}[/{instanceId}]?timeout={timeoutInSeconds}&pollingInterval={intervalInSeconds}&${q}`,
    },
    managementUrls: {
      id: 'INSTANCEID',
      statusQueryGetUri: `${instance}?${q}`,
      sendEventPostUri: `${instance}/raiseEvent/{eventName}?${q}`,
      terminatePostUri: `${instance}/terminate?reason={text}&${q}`,
      rewindPostUri: `${instance}/rewind?reason={text}&${q}`,
      purgeHistoryDeleteUri: `${instance}?${q}`,
      restartPostUri: `${instance}/restart?${q}`,
      suspendPostUri: `${instance}/suspend?reason={text}&${q}`,
      resumePostUri: `${instance}/resume?reason={text}&${q}`,
    },
    baseUrl: rpcBaseUrl.replace(/\/$/, ''),
    requiredQueryStringParameters: q,
    rpcBaseUrl,
  };
}

function invocation(data: unknown): InvocationContext {
  const context = new InvocationContext({ options: { extraInputs: [durableClientInput] } });
  if (data !== undefined) context.extraInputs.set(durableClientInput, data);
  return context;
}

describe('the durable client of an invocation', () => {
  it('given invocations with the same client data then they share one client, and new data (a restarted host) gets its own', () => {
    const first = durableClient(
      invocation(clientData('http://127.0.0.1:7071/runtime/webhooks/durabletask/')),
    );
    const again = durableClient(
      invocation(clientData('http://127.0.0.1:7071/runtime/webhooks/durabletask/')),
    );
    expect(again).toBe(first);

    const moved = durableClient(
      invocation(clientData('http://127.0.0.1:7072/runtime/webhooks/durabletask/', 'other')),
    );
    expect(moved).not.toBe(first);
    expect(moved.taskHubName).toBe('other');
    expect(
      durableClient(invocation(clientData('http://127.0.0.1:7072/runtime/webhooks/durabletask/', 'other'))),
    ).toBe(moved);
  });

  it('given an invocation without the binding data then durable-functions refuses it, as getClient does', () => {
    expect(() => durableClient(invocation(undefined))).toThrow(/durable client input/);
  });
});
