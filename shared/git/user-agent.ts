import { packageVersion } from '../package-version';

/**
 * The User-Agent of every request. Azure Repos serves Git only to agents that start with `git/`
 * (others get a web page), so we name the protocol level we speak and then ourselves.
 */
export const GIT_USER_AGENT = `git/2.45.0 (kubescribe/${packageVersion()})`;
