// The dashboard page and its style, served as /api/dashboard and /api/dashboard/app.css. The page
// holds no data and no secret: its script reads the read API with the token the viewer gives.
/** The page, telling its script whether the server asks for a token (`server.auth`). */
export function dashboardHtml(auth: 'required' | 'disabled'): string {
  return DASHBOARD_HTML.replace('{{auth}}', auth);
}

const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="kubescribe-auth" content="{{auth}}">
<link rel="icon" href="data:,">
<title>kubescribe</title>
<link rel="stylesheet" href="/api/dashboard/app.css">
</head>
<body>
<header>
  <h1>kubescribe</h1>
  <span id="updated" class="muted" aria-live="polite"></span>
  <button id="forget-token" type="button">Forget token</button>
</header>
<p id="problem" role="alert" hidden></p>
<form id="token-form" hidden>
  <label for="token">Read token</label>
  <input id="token" type="password" autocomplete="off" required>
  <button type="submit">Read</button>
  <p class="muted">A source token (one with <code>access: read</code> is enough); kept in this tab only.</p>
</form>
<main id="targets"></main>
<script src="/api/dashboard/app.js"></script>
</body>
</html>
`;

export const DASHBOARD_CSS = `:root { color-scheme: light dark; --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --line: #8884; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; }
header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: baseline; padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.25rem; margin: 0; }
header button { margin-left: auto; }
#problem { margin: .75rem 1rem; padding: .5rem .75rem; border-left: 4px solid var(--bad); }
#token-form { margin: 1rem; display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
#token-form input { flex: 1 1 14rem; padding: .4rem; }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 26rem), 1fr)); gap: 1rem; padding: 1rem; }
.target { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; min-width: 0; }
.target h2 { margin: 0 0 .25rem; font-size: 1.15rem; }
.target h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .75rem; margin: .5rem 0; }
dt { color: GrayText; }
dd { margin: 0; overflow-wrap: anywhere; }
.badges { display: flex; flex-wrap: wrap; gap: .35rem; margin: .25rem 0; }
.badge { border-radius: 999px; padding: 0 .6rem; font-size: .85rem; border: 1px solid currentColor; }
.badge.ok { color: var(--ok); } .badge.warn { color: var(--warn); } .badge.bad { color: var(--bad); }
table { width: 100%; border-collapse: collapse; font-size: .9rem; }
th, td { text-align: left; padding: .2rem .4rem; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.muted { color: GrayText; margin: .25rem 0; }
.conditions { padding-left: 1.2rem; margin: .25rem 0; }
.retry { display: flex; flex-wrap: wrap; gap: .5rem; align-items: baseline; margin: .25rem 0; }
.per-minute { margin: .25rem 0 .5rem; }
.chart { width: 100%; max-width: 36rem; height: 4rem; display: block; }
.chart line { stroke: var(--line); }
.chart .accepted, .key.accepted { fill: #0969da; background: #0969da; }
.chart .published, .key.published { fill: var(--ok); background: var(--ok); }
.key { display: inline-block; width: .7rem; height: .7rem; border-radius: 2px; vertical-align: middle; }
.legend { font-size: .85rem; }
.changes { list-style: none; padding: 0; margin: .1rem 0 0; font-family: ui-monospace, monospace; font-size: .82rem; }
.history summary { cursor: pointer; margin-top: .75rem; font-weight: 600; }
.history ol { padding-left: 1.2rem; font-size: .9rem; }
`;
