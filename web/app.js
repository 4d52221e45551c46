/*
 * volbench's web view: the runs list (refreshing itself), a run's page (run-page.js), and a
 * comparison of several runs labelled by what they ran on. Everything comes from the service's
 * own API with the token kept in sessionStorage; text from the service is set as text, never
 * as HTML.
 */
import { $, api, AuthError, el, ENDED, setToken, token } from './common.js';
import { runLabels } from './describe.js';
import { showRun } from './run-page.js';
import { showReport } from './reports.js';
import { showStudies, showStudy, studyFail } from './studies.js';

const PAGE_SIZE = 20;
/** The list refreshes this often while it is shown (and the tab is visible). */
const REFRESH_MS = 3000;

const state = { cursor: null, shown: 0, filters: new URLSearchParams(), selected: new Set(), iops: new Map(), refreshes: 0 };

/* The page shown: what it must stop when it is left (an event stream, a chart, a timer). */

let page = null;

function newPage() {
  if (page) page.leave();
  const controller = new AbortController();
  const leaving = [];
  const me = {
    signal: controller.signal,
    current: () => page === me,
    onLeave: (f) => leaving.push(f),
    leave: () => {
      controller.abort();
      for (const f of leaving) f();
    },
    fail,
  };
  page = me;
  return me;
}

function show(id) {
  for (const s of document.querySelectorAll('main > section')) s.hidden = s.id !== id;
  $('#logout').hidden = id === 'login';
}

function fail(err) {
  if (err instanceof AuthError) {
    route();
    return;
  }
  if (err && err.name === 'AbortError') return;
  const where = document.querySelector('main > section:not([hidden])') || document.body;
  where.append(el('p', { className: 'error', role: 'alert', text: `Error: ${err.message}` }));
}

/* Login */

$('#login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  setToken($('#token').value);
  $('#token').value = '';
  try {
    await api('/v1/runs?limit=1');
    $('#login-error').textContent = '';
    route();
  } catch (err) {
    $('#login-error').textContent = `Log in failed: ${err.message}`;
  }
});

$('#logout').addEventListener('click', () => {
  setToken(null);
  route();
});

/* Runs list */

/** Each run's headline IOPS, as the report states it (the one rule, in src/publish/model.ts). */
function headlineIops(reportJson) {
  const byRun = new Map();
  for (const group of reportJson.groups) {
    for (const row of group.rows) byRun.set(row.source, row.headline_iops);
  }
  return byRun;
}

function liveIops(run) {
  const p = run.progress;
  return p ? Math.round((p.read ? p.read.iops : 0) + (p.write ? p.write.iops : 0) + (p.trim ? p.trim.iops : 0)) : null;
}

/** The headline IOPS of ended runs, each asked of the service once: an ended run's is final. */
async function learnIops(runs) {
  const missing = runs.filter((r) => ENDED.includes(r.status) && !state.iops.has(r.id)).map((r) => r.id);
  if (missing.length === 0) return;
  const q = new URLSearchParams(missing.map((id) => ['run', id]));
  q.set('format', 'json');
  try {
    const found = headlineIops(await (await api(`/v1/report?${q}`)).json());
    for (const id of missing) state.iops.set(id, found.get(id) ?? null);
  } catch (err) {
    // The list still shows without the headline.
    if (err instanceof AuthError) throw err;
  }
}

function runRow(run) {
  const box = el('input', { type: 'checkbox', 'data-run': run.id, 'aria-label': `compare ${run.id}` });
  box.checked = state.selected.has(run.id);
  box.addEventListener('change', () => {
    if (box.checked) state.selected.add(run.id);
    else state.selected.delete(run.id);
    $('#compare').disabled = state.selected.size < 2;
  });
  const value = ENDED.includes(run.status) ? state.iops.get(run.id) : liveIops(run);
  return el('tr', { 'data-run': run.id, 'data-status': run.status, 'data-iops': String(value ?? '') }, [
    el('td', {}, [box]),
    el('td', {}, [el('a', { href: `#/runs/${encodeURIComponent(run.id)}`, text: run.id })]),
    el('td', { className: `status-${run.status}`, text: run.status }),
    el('td', { text: run.targets.join(', ') }),
    el('td', { text: run.suite ? run.suite.name : run.analysis ? run.analysis.analysis : '' }),
    el('td', { text: run.gate || '' }),
    el('td', { className: 'num', text: typeof value === 'number' ? Math.round(value).toLocaleString('en-US') : '' }),
    el('td', { text: run.created_at }),
  ]);
}

/**
 * `reset`: the first page for the filters; `more`: the next page after it; `refresh`: as many
 * rows as are shown, again (new runs come first, statuses change).
 */
async function loadRuns(mode) {
  const q = new URLSearchParams(state.filters);
  const limit = mode === 'refresh' ? Math.min(100, Math.max(PAGE_SIZE, state.shown)) : PAGE_SIZE;
  q.set('limit', String(limit));
  if (mode === 'more' && state.cursor) q.set('cursor', state.cursor);
  const list = await (await api(`/v1/runs?${q}`)).json();
  await learnIops(list.runs);
  // A row that did not change stays the same element: a refresh takes no focus or selection away.
  const old = new Map([...$('#runs-table tbody').rows].map((tr) => [tr.dataset.run, tr]));
  const rows = list.runs.map((run) => {
    const fresh = runRow(run);
    const kept = old.get(run.id);
    return kept && kept.dataset.status === fresh.dataset.status && kept.dataset.iops === fresh.dataset.iops ? kept : fresh;
  });
  if (mode === 'more') {
    $('#runs-table tbody').append(...rows);
    state.shown += rows.length;
  } else {
    $('#runs-table tbody').replaceChildren(...rows);
    state.shown = rows.length;
  }
  state.cursor = list.next_cursor;
  $('#more').hidden = !list.next_cursor;
  state.refreshes++;
  $('#refreshed').textContent = `updated ${new Date().toLocaleTimeString('en-GB')}, every ${REFRESH_MS / 1000} s`;
  $('#refreshed').dataset.refreshes = String(state.refreshes);
}

function showRuns(me) {
  show('runs');
  document.title = 'volbench runs';
  loadRuns('reset').catch(fail);
  let busy = false;
  const timer = setInterval(() => {
    if (busy || document.hidden || !me.current()) return;
    busy = true;
    loadRuns('refresh').catch(fail).finally(() => {
      busy = false;
    });
  }, REFRESH_MS);
  me.onLeave(() => clearInterval(timer));
}

$('#filters').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = new FormData($('#filters'));
  state.filters = new URLSearchParams();
  for (const key of ['status', 'target', 'gate']) if (form.get(key)) state.filters.set(key, form.get(key));
  loadRuns('reset').catch(fail);
});
$('#more').addEventListener('click', () => loadRuns('more').catch(fail));
$('#compare').addEventListener('click', () => {
  location.hash = `#/compare?${new URLSearchParams([...state.selected].map((id) => ['run', id]))}`;
});

/* Compare: the runs by what they ran on (the run id beside it), then their report. */

async function showCompare(ids, me) {
  show('compare-view');
  // Nothing of the comparison shown before stays while this one loads.
  $('#compare-title').textContent = 'Compare';
  $('#compare-runs tbody').replaceChildren();
  $('#compare-view .report-area').replaceChildren();
  const runs = await Promise.all(ids.map(async (id) => (await api(`/v1/runs/${encodeURIComponent(id)}`)).json()));
  if (!me.current()) return;
  // By volume, else target, as the report's rows below; repeats told apart by target or short run id.
  const shown = runLabels(runs);
  $('#compare-title').textContent = `Compare: ${shown.join(' vs ')}`;
  document.title = `${$('#compare-title').textContent} · volbench`;
  $('#compare-runs tbody').replaceChildren(...runs.map((run, i) => el('tr', { 'data-run': run.id }, [
    el('th', { scope: 'row', text: shown[i] }),
    el('td', { text: run.what_ran }),
    el('td', { className: `status-${run.status}`, text: run.status }),
    el('td', {}, [el('a', { href: `#/runs/${encodeURIComponent(run.id)}` }, [el('code', { text: run.id })])]),
  ])));
  await showReport($('#compare-view .report-area'), ids, fail);
}

/* Routing by the URL's fragment: #/, #/runs/ID, #/compare?run=A&run=B */

function route() {
  const me = newPage();
  if (!token()) {
    show('login');
    return;
  }
  const hash = location.hash || '#/';
  const run = /^#\/runs\/([^/?]+)$/.exec(hash);
  const study = /^#\/studies\/([^/?]+)$/.exec(hash);
  if (study) {
    showStudy(decodeURIComponent(study[1]), me, show).catch((err) => studyFail(err, route, fail));
  } else if (hash === '#/studies') {
    showStudies(me, show);
  } else if (run) {
    show('run');
    showRun(decodeURIComponent(run[1]), me).catch(fail);
  } else if (hash.startsWith('#/compare?')) {
    showCompare(new URLSearchParams(hash.slice('#/compare?'.length)).getAll('run'), me).catch(fail);
  } else {
    showRuns(me);
  }
}

window.addEventListener('hashchange', route);
route();
