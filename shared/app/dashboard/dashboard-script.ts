// The dashboard's script, served as /api/dashboard/app.js (no build step: plain ES2017 the browser
// runs as it is). It renders everything with textContent, never HTML: paths, messages and authors
// come from clusters. No template literals below, so the text is the file the browser gets.
export const DASHBOARD_SCRIPT = String.raw`'use strict';
(function () {
  var TOKEN_KEY = 'kubescribe.readToken';
  var params = new URLSearchParams(location.search);
  var intervalMs = Math.max(500, Number(params.get('interval') || 2000));
  var api = location.pathname.replace(/\/dashboard\/?$/, '') + '/v1';
  var main = document.getElementById('targets');
  var updated = document.getElementById('updated');
  var problem = document.getElementById('problem');
  var tokenForm = document.getElementById('token-form');
  var forget = document.getElementById('forget-token');
  var timer;
  var openHistory = {};
  // what the last "Retry now" of each target got, kept across the page's refreshes
  var retrySaid = {};

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === 'text') node.textContent = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(child);
    });
    return node;
  }

  function call(method, path) {
    var headers = { accept: 'application/json' };
    var token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.authorization = 'Bearer ' + token;
    return fetch(api + path, { method: method, headers: headers, cache: 'no-store' }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) {
          var error = new Error(body.message || response.statusText);
          error.status = response.status;
          throw error;
        }
        return body;
      });
    });
  }

  function get(path) {
    return call('GET', path);
  }

  // A refresh makes a pending retry due now (after a token was replaced); only a write token may send it.
  function retryNow(name, button, said) {
    button.disabled = true;
    call('POST', '/targets/' + encodeURIComponent(name) + '/refresh')
      .then(function () {
        return 'Retry requested.';
      })
      .catch(function (error) {
        return error.status === 403
          ? 'This token may only read: retrying needs a write token. ' + error.message
          : error.message;
      })
      .then(function (text) {
        retrySaid[name] = text;
        said.textContent = text;
        button.disabled = false;
      });
  }

  function time(iso) {
    if (!iso) return '—';
    var date = new Date(iso);
    return date.toLocaleString() + ' (' + relative(date.getTime() - Date.now()) + ')';
  }

  function relative(ms) {
    var s = Math.round(Math.abs(ms) / 1000);
    var text = s < 120 ? s + 's' : s < 7200 ? Math.round(s / 60) + 'm' : Math.round(s / 3600) + 'h';
    return ms >= 0 ? 'in ' + text : text + ' ago';
  }

  function bytes(n) {
    if (n < 1024) return n + ' B';
    if (n < 1048576) return (n / 1024).toFixed(1) + ' KiB';
    return (n / 1048576).toFixed(1) + ' MiB';
  }

  function field(name, label, value, iso) {
    var dd = typeof value === 'string' ? el('dd', { text: value }) : el('dd', {}, [value]);
    dd.setAttribute('data-field', name);
    if (iso) dd.setAttribute('data-iso', iso);
    return [el('dt', { text: label }), dd];
  }

  function list(pairs) {
    var dl = el('dl');
    pairs.forEach(function (pair) {
      if (!pair) return;
      dl.appendChild(pair[0]);
      dl.appendChild(pair[1]);
    });
    return dl;
  }

  function badge(text, kind, name) {
    return el('span', { class: 'badge ' + kind, 'data-badge': name, text: text });
  }

  function pushLink(push) {
    if (!push) return el('span', { text: 'never' });
    var short = push.commit.slice(0, 12);
    var commit = push.url
      ? el('a', { href: push.url, rel: 'noopener noreferrer', target: '_blank', text: short })
      : el('code', { text: short });
    return el('span', {}, [commit, el('span', { text: ' at ' + time(push.at) })]);
  }

  function pullRequestText(pr) {
    var parts = [];
    if (pr.open) {
      parts.push(el('a', { href: pr.open.url, rel: 'noopener noreferrer', target: '_blank', text: '#' + pr.open.number }));
      parts.push(el('span', { text: ' open' + (pr.unproposed ? ', a push not yet shown' : '') }));
    } else {
      parts.push(el('span', { text: pr.unproposed ? 'opening' : 'none open' }));
    }
    if (pr.ended)
      parts.push(el('span', { class: 'muted', text: '; last #' + pr.ended.number + ' ' + pr.ended.state + ' ' + time(pr.ended.at) }));
    if (pr.lastError) parts.push(el('span', { text: '; the host failed: ' + pr.lastError.message }));
    return el('span', {}, parts);
  }

  function savesTable(saves) {
    if (saves.items.length === 0) return el('p', { class: 'muted', text: 'No saves kept.' });
    var rows = saves.items.map(function (save) {
      return el('tr', { 'data-save': save.id }, [
        el('td', { text: save.id }),
        el('td', { text: save.author }),
        el('td', { text: save.outcome || save.phase }),
        el('td', { text: save.commit ? save.commit.slice(0, 12) : '—' }),
      ]);
    });
    var head = el('tr', {}, ['Save', 'Author', 'State', 'Commit'].map(function (h) {
      return el('th', { text: h });
    }));
    return el('table', {}, [el('thead', {}, [head]), el('tbody', {}, rows)]);
  }

  function commitsTable(commits) {
    if (commits.length === 0) return el('p', { class: 'muted', text: 'No commit published since the branch kept them.' });
    var rows = commits.map(function (c) {
      var short = c.commit.slice(0, 12);
      var link = c.url
        ? el('a', { href: c.url, rel: 'noopener noreferrer', target: '_blank', text: short })
        : el('code', { text: short });
      var changes = c.changes.map(function (change) {
        return el('li', { text: change.verb + ' ' + change.object });
      });
      if (c.more > 0) changes.push(el('li', { class: 'muted', text: 'and ' + c.more + ' more' }));
      return el('tr', { 'data-commit': c.commit }, [
        el('td', {}, [link, el('div', { class: 'muted', text: time(c.at) })]),
        el('td', { text: c.author }),
        el('td', {}, [el('div', { text: c.subject }), el('ul', { class: 'changes' }, changes)]),
      ]);
    });
    var head = el('tr', {}, ['Commit', 'Author', 'Changes'].map(function (h) {
      return el('th', { text: h });
    }));
    return el('table', { 'data-field': 'recent-commits' }, [el('thead', {}, [head]), el('tbody', {}, rows)]);
  }

  // Changes accepted and published per minute over the last hour: two bar series in an inline SVG.
  function perMinuteChart(slots) {
    var SVG = 'http://www.w3.org/2000/svg';
    var width = 300;
    var height = 60;
    var step = width / slots.length;
    var top = 1;
    var accepted = 0;
    var published = 0;
    slots.forEach(function (slot) {
      top = Math.max(top, slot.accepted, slot.published);
      accepted += slot.accepted;
      published += slot.published;
    });
    var svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + (height + 2));
    svg.setAttribute('class', 'chart');
    // the hour spans the card's width: bars stretch, the page stays readable on a phone
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('role', 'img');
    var label = accepted + ' change(s) accepted and ' + published + ' published in the last hour; at most ' + top + ' a minute';
    svg.setAttribute('aria-label', label);
    var title = document.createElementNS(SVG, 'title');
    title.textContent = label;
    svg.appendChild(title);
    slots.forEach(function (slot, i) {
      [['accepted', slot.accepted, 0], ['published', slot.published, step / 2]].forEach(function (bar) {
        if (bar[1] === 0) return;
        var h = Math.max(1, (bar[1] / top) * height);
        var rect = document.createElementNS(SVG, 'rect');
        rect.setAttribute('x', String(i * step + bar[2]));
        rect.setAttribute('y', String(height - h));
        rect.setAttribute('width', String(Math.max(1, step / 2 - 0.5)));
        rect.setAttribute('height', String(h));
        rect.setAttribute('class', bar[0]);
        rect.setAttribute('data-minute', slot.minute);
        rect.setAttribute('data-count', String(bar[1]));
        svg.appendChild(rect);
      });
    });
    var axis = document.createElementNS(SVG, 'line');
    axis.setAttribute('x1', '0');
    axis.setAttribute('x2', String(width));
    axis.setAttribute('y1', String(height + 0.5));
    axis.setAttribute('y2', String(height + 0.5));
    svg.appendChild(axis);
    var legend = el('p', { class: 'muted legend' }, [
      el('span', { class: 'key accepted' }),
      el('span', { text: ' accepted ' + accepted + ' ' }),
      el('span', { class: 'key published' }),
      el('span', { text: ' published ' + published + ' (last hour, per minute; at most ' + top + ')' }),
    ]);
    return el('figure', { class: 'per-minute', 'data-field': 'per-minute' }, [svg, legend]);
  }

  function historyPanel(name) {
    var details = el('details', { class: 'history', 'data-panel': 'history' }, [
      el('summary', { text: 'Driver history' }),
    ]);
    var body = el('div', { class: 'history-body', text: 'Loading…' });
    details.appendChild(body);
    if (openHistory[name]) details.open = true;
    function load() {
      get('/targets/' + encodeURIComponent(name) + '/history?limit=30')
        .then(function (history) {
          body.textContent = '';
          if (history.steps.length === 0) body.appendChild(el('p', { class: 'muted', text: 'No steps yet.' }));
          var ol = el('ol');
          history.steps.forEach(function (step) {
            var text = time(step.at) + ' — ' + step.kind + (step.detail ? ': ' + step.detail : '');
            ol.appendChild(el('li', { 'data-step': step.kind, text: text }));
          });
          body.appendChild(ol);
        })
        .catch(function (error) {
          body.textContent = error.status === 501 ? 'This host keeps no readable history.' : error.message;
        });
    }
    details.addEventListener('toggle', function () {
      openHistory[name] = details.open;
      if (details.open) load();
    });
    if (details.open) load();
    return details;
  }

  function retryPanel(name) {
    var button = el('button', { type: 'button', 'data-action': 'retry-now', text: 'Retry now' });
    var said = el('span', {
      class: 'muted',
      'data-field': 'retry-result',
      'aria-live': 'polite',
      text: retrySaid[name] || '',
    });
    button.addEventListener('click', function () {
      retryNow(name, button, said);
    });
    return el('p', { class: 'retry' }, [button, said]);
  }

  function card(summary, status, saves) {
    var pub = status.publication;
    var win = status.window;
    var ready = status.conditions.find(function (c) {
      return c.type === 'Ready';
    });
    var stalled = status.conditions.find(function (c) {
      return c.type === 'Stalled' && c.status === 'True';
    });
    var badges = el('p', { class: 'badges' }, [
      ready && ready.status === 'True'
        ? badge('Ready', 'ok', 'ready')
        : badge(ready ? ready.reason : 'No state yet', 'warn', 'not-ready'),
      status.suspension.suspended ? badge('Suspended', 'warn', 'suspended') : null,
      pub.intakePaused ? badge('429: intake paused', 'bad', 'intake-paused') : null,
      stalled ? badge('Stalled: ' + stalled.reason, 'bad', 'stalled') : null,
      pub.retryAt && !stalled ? badge('Retrying', 'bad', 'retrying') : null,
      status.quietSources.length > 0 ? badge('Source quiet', 'bad', 'source-quiet') : null,
      status.refusedWrites.count > 0 ? badge('Writes refused', 'bad', 'writes-refused') : null,
    ]);
    var held = status.heldForAttribution;
    var windowText = win.open
      ? win.author + ', ' + win.changes + ' change(s), closes ' + time(win.closesAt)
      : 'closed';
    var intake = pub.intakePaused
      ? 'paused (429 until Git recovers)'
      : pub.retryAt
        ? 'open within the outage budget'
        : 'open';
    var refused = status.refusedWrites.recent.map(function (w) {
      var what = w.writeId !== undefined ? w.writeId : 'not recorded, ' + w.object;
      return el('li', { text: what + ': ' + w.cause + ' (' + time(w.at) + ')' });
    });
    // Absent from a server of an earlier release: shown as nothing counted.
    var notRecorded = status.notRecorded || { count: 0, byReason: {}, recent: [] };
    var reasons = Object.keys(notRecorded.byReason).map(function (reason) {
      return el('li', { text: reason + ': ' + notRecorded.byReason[reason] });
    });
    var examples = notRecorded.recent.map(function (e) {
      return el('li', { text: e.reason + ', ' + e.object + ': ' + e.message + ' (' + time(e.at) + ')' });
    });
    var conditions = status.conditions
      .filter(function (c) {
        return c.status === 'True' && c.type !== 'Ready' && c.message;
      })
      .map(function (c) {
        return el('li', { text: c.type + ': ' + c.message });
      });
    return el('section', { class: 'target', 'data-target': summary.name }, [
      el('h2', { text: summary.name }),
      badges,
      list([
        field('repository', 'Repository', summary.repository),
        field('branch', 'Branch', summary.branch),
        field('path', 'Path', summary.path),
        field('window', 'Open window', windowText),
        field('pending', 'Pending', pub.pendingWrites + ' write(s), ' + bytes(pub.pendingBytes)),
        // the forwarder's changes waiting for their audit record (a combined feed): why they are not committed yet
        held.count > 0
          ? field(
              'held',
              'Held for attribution',
              held.count + ' change(s), ' + bytes(held.bytes) + ', oldest ' + time(held.oldestSince) +
                '; released unattributed ' + time(held.releasesAt),
              held.releasesAt,
            )
          : null,
        field('oldest', 'Oldest pending', time(pub.oldestPendingSince), pub.oldestPendingSince),
        field('intake', 'Intake', intake),
        field('retryAt', 'Retry at', time(pub.retryAt), pub.retryAt),
        field('lastError', 'Last error', pub.lastError || '—'),
        field('lastPush', 'Last push', pushLink(pub.lastPush)),
      ].concat(
        // a target that proposes (publish: propose): the branch it pushes to and its pull request
        status.pullRequest
          ? [
              field('proposeBranch', 'Proposed from', status.proposeBranch),
              field('pullRequest', 'Pull request', pullRequestText(status.pullRequest)),
            ]
          : [],
      )),
      conditions.length ? el('ul', { class: 'conditions' }, conditions) : null,
      pub.retryAt ? retryPanel(summary.name) : null,
      el('h3', { text: 'What changed' }),
      perMinuteChart(status.perMinute),
      commitsTable(status.recentCommits),
      el('h3', { text: 'Saves' }),
      savesTable(saves),
      el('h3', { text: 'Refused writes (' + status.refusedWrites.count + ')' }),
      refused.length ? el('ul', { 'data-field': 'refused' }, refused) : el('p', { class: 'muted', text: 'None.' }),
      el('h3', { text: 'Not recorded (' + notRecorded.count + ')' }),
      reasons.length
        ? el('ul', { 'data-field': 'not-recorded' }, reasons)
        : el('p', { class: 'muted', text: 'None.' }),
      examples.length ? el('ul', { 'data-field': 'not-recorded-recent', class: 'muted' }, examples) : null,
      historyPanel(summary.name),
    ]);
  }

  var authRequired = document.querySelector('meta[name="kubescribe-auth"]').content === 'required';
  // without auth there is no token to forget
  forget.hidden = !authRequired;

  function refresh() {
    clearTimeout(timer);
    if (authRequired && !sessionStorage.getItem(TOKEN_KEY)) {
      tokenForm.hidden = false;
      problem.textContent = 'This server needs a token to read.';
      problem.hidden = false;
      return;
    }
    get('/targets')
      .then(function (listing) {
        return Promise.all(
          listing.targets.map(function (summary) {
            var base = '/targets/' + encodeURIComponent(summary.name);
            return Promise.all([get(base), get(base + '/saves?limit=10')]).then(function (answers) {
              return card(summary, answers[0], answers[1]);
            });
          }),
        );
      })
      .then(function (cards) {
        tokenForm.hidden = true;
        problem.hidden = true;
        main.replaceChildren.apply(main, cards);
        if (cards.length === 0) main.appendChild(el('p', { class: 'muted', text: 'No target this token may read.' }));
        updated.textContent = 'Updated ' + new Date().toLocaleTimeString();
        timer = setTimeout(refresh, intervalMs);
      })
      .catch(function (error) {
        if (error.status === 401 || error.status === 403) {
          tokenForm.hidden = false;
          problem.textContent = sessionStorage.getItem(TOKEN_KEY) ? error.message : 'This server needs a token to read.';
        } else {
          problem.textContent = 'Cannot read the status: ' + error.message;
          timer = setTimeout(refresh, intervalMs);
        }
        problem.hidden = false;
      });
  }

  tokenForm.addEventListener('submit', function (event) {
    event.preventDefault();
    var input = document.getElementById('token');
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    input.value = '';
    refresh();
  });
  forget.addEventListener('click', function () {
    sessionStorage.removeItem(TOKEN_KEY);
    refresh();
  });
  refresh();
})();
`;
