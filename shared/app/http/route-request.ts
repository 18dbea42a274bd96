import type { ApiRequestBody } from '../../api/request';

/** An HTTP request as the app's handlers see it, whatever host delivered it. */
export interface RouteRequest {
  params: Readonly<Record<string, string | undefined>>;
  header: (name: string) => string | null | undefined;
  body: ApiRequestBody;
  /** When the request was received (RFC 3339): the time of every command it becomes. */
  at: string;
}
