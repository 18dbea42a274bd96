import { boundedHttp } from '../bounded-http';

/** Statuses whose answer has no body: a Response refuses to be built with one. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `fetch` over the Git layer's HTTP client, so pull-request calls leave through the same proxy as
 * the repository's pushes (`HTTPS_PROXY` by a CONNECT tunnel, `HTTP_PROXY`, `NO_PROXY`, read from
 * `env` on each call as git reads them); Node's own `fetch` ignores these variables. Bodies are
 * strings (JSON); the caller's signal bounds the request and its answer.
 */
export function proxiedFetch(env: Record<string, string | undefined> = process.env): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const sent = typeof init?.body === 'string' ? Buffer.from(init.body) : undefined;
    async function* body(): AsyncIterableIterator<Uint8Array> {
      if (sent) yield sent;
    }
    const res = await boundedHttp({ signal: init?.signal ?? new AbortController().signal, env }).request({
      url,
      method: init?.method ?? 'GET',
      headers,
      ...(sent ? { body: body() } : {}),
    });
    const answer = res.body;
    const stream =
      NO_BODY.has(res.statusCode) || !answer
        ? null
        : new ReadableStream<Uint8Array>({
            async pull(controller) {
              try {
                const next = await answer.next();
                if (next.done) controller.close();
                else controller.enqueue(next.value);
              } catch (error) {
                controller.error(error);
              }
            },
            async cancel() {
              await answer.return?.();
            },
          });
    return new Response(stream, {
      status: res.statusCode,
      statusText: res.statusMessage,
      headers: res.headers ?? {},
    });
  };
}
