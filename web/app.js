/*
 * volbench's web view: the runs list, a run's page (live progress from its event stream, then
 * its report), and a comparison of several runs. Everything comes from the service's own API
 * with the token kept in sessionStorage; text from the service is set as text, never as HTML.
 */
'use strict';

const TOKEN_KEY = 'volbench-token';
const PAGE_SIZE = 20;
const FORMATS = [['html', 'HTML'], ['md', 'Markdown'], ['csv', 'CSV']];

const $ = (sel) => document.querySelector(sel);
const state = { cursor: null, selected: new Set(), stream: null, chart: null };

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

class AuthError extends Error {}

async function api(path) {
  const res = await fetch(path, { headers: { authorization: `Bearer ${token()}` } });
  if (res.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    throw new AuthError('the token was refused');
  }
  if (!res.ok) {
    let detail = `${res.status}`;
    try {
      detail = (await res.json()).detail || detail;
    } catch {
      // Not a problem document.
    }
    throw new Error(detail);
  }
  return res;
}

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'text') node.textContent = v;
    else if (k === 'className') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function show(id) {
  for (const s of document.querySelectorAll('main > section')) s.hidden = s.id !== id;
  $('#logout').hidden = id === 'login';
}

function stopStream() {
  if (state.stream) state.stream.abort();
  state.stream = null;
  if (state.chart) state.chart.dispose();
  state.chart = null;
}

/* Login */

$('#login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $('#token').value);
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
  sessionStorage.removeItem(TOKEN_KEY);
  stopStream();
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
  return p ? Math.round((p.read ? p.read.iops : 0) + (p.write ? p.write.iops : 0)) : null;
}

async function loadRuns(append) {
  const form = new FormData($('#filters'));
  const q = new URLSearchParams({ limit: String(PAGE_SIZE) });
  for (const key of ['status', 'target', 'gate']) if (form.get(key)) q.set(key, form.get(key));
  if (append && state.cursor) q.set('cursor', state.cursor);
  const page = await (await api(`/v1/runs?${q}`)).json();
  state.cursor = page.next_cursor;
  $('#more').hidden = !page.next_cursor;
  const body = $('#runs-table tbody');
  if (!append) body.replaceChildren();
  const ended = page.runs.filter((r) => ['finished', 'failed', 'cancelled'].includes(r.status)).map((r) => r.id);
  let iops = new Map();
  if (ended.length) {
    const rq = new URLSearchParams(ended.map((id) => ['run', id]));
    rq.set('format', 'json');
    try {
      iops = headlineIops(await (await api(`/v1/report?${rq}`)).json());
    } catch {
      // The list still shows without the headline.
    }
  }
  for (const run of page.runs) {
    const box = el('input', { type: 'checkbox', 'data-run': run.id, 'aria-label': `compare ${run.id}` });
    box.checked = state.selected.has(run.id);
    box.addEventListener('change', () => {
      if (box.checked) state.selected.add(run.id);
      else state.selected.delete(run.id);
      $('#compare').disabled = state.selected.size < 2;
    });
    const value = run.status === 'running' ? liveIops(run) : iops.get(run.id);
    body.append(el('tr', { 'data-run': run.id }, [
      el('td', {}, [box]),
      el('td', {}, [el('a', { href: `#/runs/${encodeURIComponent(run.id)}`, text: run.id })]),
      el('td', { className: `status-${run.status}`, text: run.status }),
      el('td', { text: run.targets.join(', ') }),
      el('td', { text: run.suite ? run.suite.name : '' }),
      el('td', { text: run.gate || '' }),
      el('td', { className: 'num', text: typeof value === 'number' ? String(Math.round(value)) : '' }),
      el('td', { text: run.created_at }),
    ]));
  }
}

$('#filters').addEventListener('submit', (event) => {
  event.preventDefault();
  loadRuns(false).catch(fail);
});
$('#more').addEventListener('click', () => loadRuns(true).catch(fail));
$('#compare').addEventListener('click', () => {
  location.hash = `#/compare?${new URLSearchParams([...state.selected].map((id) => ['run', id]))}`;
});

/* Reports: the service's own HTML report shown in a script-less frame, and downloads. */

function reportPath(runs, format) {
  const q = new URLSearchParams(runs.map((id) => ['run', id]));
  q.set('format', format);
  return `/v1/report?${q}`;
}

async function download(runs, format) {
  const blob = await (await api(reportPath(runs, format))).blob();
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: `volbench-report.${format}` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function showReport(area, runs) {
  const buttons = FORMATS.map(([format, label]) => {
    const b = el('button', { type: 'button', 'data-format': format, text: `Download ${label}` });
    b.addEventListener('click', () => download(runs, format).catch(fail));
    return b;
  });
  const html = await (await api(reportPath(runs, 'html'))).text();
  const frame = el('iframe', { sandbox: '', title: 'report' });
  frame.srcdoc = html;
  area.replaceChildren(el('p', { className: 'downloads' }, buttons), frame);
}

/* A run's page: live chart from the event stream while it runs, then its report. */

function liveChart() {
  const chart = echarts.init($('#live-chart'), null, { renderer: 'svg' });
  chart.setOption({
    animation: false,
    legend: { top: 0 },
    grid: { left: 70, right: 30, top: 40, bottom: 40 },
    xAxis: { type: 'value', name: 'seconds', nameLocation: 'middle', nameGap: 25 },
    yAxis: { type: 'value', name: 'IOPS' },
    series: [{ name: 'read', type: 'line', data: [] }, { name: 'write', type: 'line', data: [] }],
  });
  return chart;
}

function addPoint(points, progress) {
  const t = progress.elapsed_ms / 1000;
  const r = progress.read || { iops: 0, bw_bytes: 0 };
  const w = progress.write || { iops: 0, bw_bytes: 0 };
  points.push([t, r.iops, w.iops]);
  state.chart.setOption({ series: [{ data: points.map((p) => [p[0], p[1]]) }, { data: points.map((p) => [p[0], p[2]]) }] });
  $('#live-chart').dataset.points = String(points.length);
  const mib = (b) => (b / 1048576).toFixed(1);
  $('#live-table tbody').append(el('tr', {}, [t.toFixed(1), Math.round(r.iops), Math.round(w.iops), mib(r.bw_bytes), mib(w.bw_bytes)]
    .map((v) => el('td', { className: 'num', text: String(v) }))));
}

/** Reads the run's Server-Sent Events (fetch, so the token goes in a header) until the run ends. */
async function follow(id, onEvent) {
  const controller = new AbortController();
  state.stream = controller;
  const res = await fetch(`/v1/runs/${encodeURIComponent(id)}/events`, { headers: { authorization: `Bearer ${token()}` }, signal: controller.signal });
  if (!res.ok || !res.body) throw new Error(`events: ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let type = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) type = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (data) onEvent(type, JSON.parse(data));
    }
  }
}

async function showRun(id) {
  show('run');
  const area = $('#run .report-area');
  area.replaceChildren();
  $('#live-table tbody').replaceChildren();
  $('#live-chart').dataset.points = '0';
  const run = await (await api(`/v1/runs/${encodeURIComponent(id)}`)).json();
  $('#run-title').textContent = `Run ${run.id}`;
  $('#run-facts').textContent = `${run.status} · ${run.targets.join(', ')}${run.suite ? ` · suite ${run.suite.name}` : ''}${run.gate ? ` · gate ${run.gate}` : ''}`;
  $('#run-facts').dataset.status = run.status;
  const live = run.status === 'queued' || run.status === 'running';
  $('#live').hidden = !live;
  if (!live) {
    await showReport(area, [run.id]);
    return;
  }
  state.chart = liveChart();
  const points = [];
  await follow(run.id, (type, data) => {
    if (type === 'progress') addPoint(points, data);
    if (type === 'started' || type === 'progress') {
      $('#run-facts').dataset.status = 'running';
    }
  }).catch((err) => {
    if (err.name !== 'AbortError') throw err;
  });
  if (location.hash === `#/runs/${encodeURIComponent(id)}`) {
    stopStream();
    await showRun(id);
  }
}

async function showCompare(runs) {
  show('compare-view');
  $('#compare-runs').textContent = runs.join(', ');
  await showReport($('#compare-view .report-area'), runs);
}

/* Routing by the URL's fragment: #/, #/runs/ID, #/compare?run=A&run=B */

function fail(err) {
  if (err instanceof AuthError) {
    route();
    return;
  }
  const where = document.querySelector('main > section:not([hidden])') || document.body;
  where.append(el('p', { className: 'error', role: 'alert', text: `Error: ${err.message}` }));
}

function route() {
  stopStream();
  if (!token()) {
    show('login');
    return;
  }
  const hash = location.hash || '#/';
  const run = /^#\/runs\/([^/?]+)$/.exec(hash);
  if (run) {
    showRun(decodeURIComponent(run[1])).catch(fail);
  } else if (hash.startsWith('#/compare?')) {
    showCompare(new URLSearchParams(hash.slice('#/compare?'.length)).getAll('run')).catch(fail);
  } else {
    show('runs');
    loadRuns(false).catch(fail);
  }
}

window.addEventListener('hashchange', route);
route();
