/*
 * A run's page: what ran (spec, target and volume in its title), its status and times, Cancel
 * while it is queued or running, its live view while it runs, then its assertions (measured
 * against wanted), fio's normal text and JSON, and its report.
 */
import { $, api, el, ENDED, follow, fmtDuration, saveAs } from './common.js';
import { directionsOf } from './describe.js';
import { LiveView } from './live.js';
import { showReport } from './reports.js';

const runPath = (id) => `/v1/runs/${encodeURIComponent(id)}`;

function facts(run) {
  const parts = [run.status];
  if (run.started_at) parts.push(`started ${run.started_at}`);
  else parts.push(`submitted ${run.created_at}`);
  if (run.started_at && run.finished_at) parts.push(`took ${fmtDuration(Date.parse(run.finished_at) - Date.parse(run.started_at))}`);
  if (run.suite) parts.push(`suite ${run.suite.name}${run.suite.loops > 1 ? `, ${run.suite.loops} loops` : ''}`);
  if (run.volume_text) parts.push(`volume ${run.volume_text}`);
  if (run.gate) parts.push(`gate ${run.gate}`);
  return parts.join(' · ');
}

function renderHead(run) {
  const title = run.title;
  $('#run-title').textContent = title;
  document.title = `${title} · volbench`;
  $('#run-id').textContent = run.id;
  $('#run-facts').textContent = facts(run);
  $('#run-facts').dataset.status = run.status;
  $('#run-spec pre').textContent = JSON.stringify(run.suite ?? run.analysis ?? run.spec, null, 2);
  const error = $('#run-error');
  error.hidden = !run.error;
  error.textContent = run.error ? `${run.error.title}: ${run.error.detail ?? ''}` : '';
}

/** "measured 1234 IOPS, wanted >= 3000 IOPS": the two sides as the assertion wrote its unit. */
function sides(outcome) {
  const m = /^measured (.*), wanted (.*)$/.exec(outcome.message);
  if (m) return [m[1], m[2]];
  return [outcome.measured === null ? 'not measured' : `${outcome.measured} ${outcome.unit}`, `${outcome.op} ${outcome.wanted} ${outcome.unit}`];
}

function renderAssertions(run) {
  const box = $('#assertions');
  box.hidden = run.assertions.length === 0 && run.assert.length === 0;
  const rows = run.assertions.length
    ? run.assertions.map((o) => {
      const [measured, wanted] = sides(o);
      return el('tr', { className: o.passed ? 'pass' : 'fail' }, [
        el('td', {}, [el('code', { text: o.expr })]), el('td', { className: 'num', text: measured }),
        el('td', { className: 'num', text: wanted }), el('td', { text: o.passed ? 'passed' : 'failed' }),
      ]);
    })
    // Not judged yet (or no result to judge): the assertions as submitted.
    : run.assert.map((expr) => el('tr', {}, [el('td', {}, [el('code', { text: expr })]), el('td', { text: '' }), el('td', { text: '' }), el('td', { text: ENDED.includes(run.status) ? 'not judged' : 'pending' })]));
  box.querySelector('tbody').replaceChildren(...rows);
}

async function renderOutput(run) {
  const box = $('#fio-output');
  box.hidden = false;
  let normal;
  let json;
  try {
    [normal, json] = await Promise.all([
      api(`${runPath(run.id)}/result?format=normal`).then((r) => r.text()),
      api(`${runPath(run.id)}/result?format=json`).then((r) => r.text()),
    ]);
  } catch (err) {
    if (err.status !== 404) throw err;
    $('#fio-normal').textContent = `This run ended without a result${run.error ? `: ${run.error.detail ?? run.error.title}` : '.'}`;
    $('#fio-json').hidden = true;
    $('#fio-output .downloads').hidden = true;
    return false;
  }
  $('#fio-normal').textContent = normal;
  $('#fio-json').hidden = false;
  $('#fio-output .downloads').hidden = false;
  let pretty = json;
  try {
    pretty = JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    // Shown as it came.
  }
  $('#fio-json pre').textContent = pretty;
  $('#download-normal').onclick = () => saveAs(`volbench-${run.id}.txt`, new Blob([normal], { type: 'text/plain' }));
  $('#download-json').onclick = () => saveAs(`volbench-${run.id}.json`, new Blob([json], { type: 'application/json' }));
  return true;
}

function setUpCancel(run) {
  const live = !ENDED.includes(run.status);
  $('#run-actions').hidden = !live;
  const button = $('#cancel');
  button.disabled = false;
  $('#cancel-state').textContent = '';
  button.onclick = async () => {
    button.disabled = true;
    $('#cancel-state').textContent = 'cancelling…';
    try {
      const res = await api(runPath(run.id), { method: 'DELETE' });
      $('#cancel-state').textContent = res.status === 202 ? 'stopping…' : 'cancelled';
    } catch (err) {
      button.disabled = false;
      $('#cancel-state').textContent = `could not cancel: ${err.message}`;
    }
  };
}

async function showEnded(run, page) {
  $('#live').hidden = true;
  renderAssertions(run);
  const hasResult = await renderOutput(run);
  if (!page.current()) return;
  $('#run-report').hidden = false;
  // A run without a result still has a report row that says why.
  await showReport($('#run-report .report-area'), [run.id], page.fail);
  $('#run-report').dataset.result = String(hasResult);
}

/**
 * Shows run `id`; `page` holds what the page must stop when it is left (the event stream, the
 * chart) and says whether it is still the page shown.
 */
export async function showRun(id, page) {
  // Nothing of the run shown before stays while this one loads.
  for (const box of ['#fio-output', '#run-report', '#assertions', '#live', '#run-actions', '#run-error']) $(box).hidden = true;
  for (const text of ['#run-title', '#run-id', '#run-facts']) $(text).textContent = '';
  $('#run-report .report-area').replaceChildren();
  let run = await (await api(runPath(id))).json();
  if (!page.current()) return;
  renderHead(run);
  setUpCancel(run);
  renderAssertions(run);
  if (!ENDED.includes(run.status)) {
    $('#live').hidden = false;
    // A suite's test does some of the suite's directions: the others have no point while it runs.
    const live = new LiveView(directionsOf(run), (p) => (p.suite_test ? directionsOf(run, p.suite_test.jobs) : null));
    page.onLeave(() => live.dispose());
    await follow(id, page.signal, (type, data) => {
      if (type === 'progress') live.add(data);
      if (type === 'started') {
        api(runPath(id)).then((r) => r.json()).then((r) => page.current() && renderHead(r), () => {});
      }
    }).catch((err) => {
      if (err.name !== 'AbortError') throw err;
    });
    if (!page.current()) return;
    run = await (await api(runPath(id))).json();
    renderHead(run);
    setUpCancel(run);
  }
  await showEnded(run, page);
}
